# SPDX-License-Identifier: MIT
"""A rank program that never ends, for check_deadline.py only (never a
scenario's): each rank's DataLoader worker blocks forever in
stuck_in_getitem() while the rank waits for its first batch. check.py's
deadline must then name that frame in the worker's Python stack."""
import argparse
import threading

import torch.utils.data


def stuck_in_getitem():
    threading.Event().wait()  # nobody sets it


class Stuck(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        stuck_in_getitem()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case")  # what check.py passes every rank program
    parser.add_argument("--truth")
    parser.parse_args()
    for batch in torch.utils.data.DataLoader(Stuck(), batch_size=2, num_workers=1):
        print(batch)


if __name__ == "__main__":
    main()
