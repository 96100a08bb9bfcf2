# SPDX-License-Identifier: MIT
"""Lightning's own DDP: `Trainer(accelerator="cpu", devices=N, strategy="ddp")`
started as one plain `python lightning_ranks.py`; Lightning's launcher
re-runs this script for ranks 1..N-1 (LOCAL_RANK in their environment) and
injects a DistributedSampler into the loader train_dataloader() returns, by
building a new DataLoader inside trainer.fit(). Each rank writes what its
training_step got to TRUTH_DIR/rank-<r>.json (format in ranks.py). The
scenario file (scenarios/<case>.py) says how many workers each rank has
(WORKERS), and may build the loader (loader(dataset, workers) -> (site,
loader)) and give the Trainer options (TRAINER; with
use_distributed_sampler=False Lightning iterates the user's loader). With
PREDICT (a dataset length) it runs trainer.predict() over
predict_dataloader() instead of fit(): what predict_step got is the truth.

    .venv/bin/python tests/e2e/lightning_ranks.py --case lightning_ddp --nproc 4 --truth /tmp/t"""
import argparse
import os

import lightning as L
import torch
from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, Truth, end_process_group, here, load_scenario


class Model(L.LightningModule):
    """Records the batches of each epoch; learns nothing of interest."""

    def __init__(self, truth, scenario, replaced):
        super().__init__()
        self.layer = torch.nn.Linear(1, 1)
        self.truth, self.scenario, self.replaced = truth, scenario, replaced
        self.user = None  # truth entries: the loader train_dataloader() built,
        self.fitted = None  # and the one Lightning built in fit() (or the user's)

    def train_dataloader(self):
        dataset = IndexDataset(402)  # not divisible by 4: DistributedSampler pads
        workers = self.scenario.WORKERS
        if hasattr(self.scenario, "loader"):
            site, loader = self.scenario.loader(dataset, workers)
        else:
            site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=workers, persistent_workers=bool(workers))
        if self.user is None:
            # Replaced by Lightning (never iterated) unless it keeps the user's.
            self.user = self.truth.loader(site)
            if not self.replaced:
                self.fitted = self.user
        return loader

    def on_train_epoch_start(self):
        if self.trainer.reload_dataloaders_every_n_epochs and self.current_epoch:
            # Reloaded: a new loader at the same site, read for this epoch.
            self.fitted = self.truth.loader(self.fitted["site"], ordinal=self.current_epoch)
        self.fitted["iterated"] = True
        # STOPS_EARLY: the scenario's Trainer ends each epoch before the
        # loader runs out (limit_train_batches).
        self.fitted["epochs"].append({"epoch": self.current_epoch, "batches": [],
                                      "exhausted": not getattr(self.scenario, "STOPS_EARLY", False)})

    def training_step(self, batch, batch_idx):
        self.fitted["epochs"][-1]["batches"].append(batch.tolist())
        return self.layer(batch.float().unsqueeze(1)).sum()

    def predict_dataloader(self):
        dataset = IndexDataset(self.scenario.PREDICT)
        workers = self.scenario.WORKERS
        site = here(); loader = DataLoader(dataset, batch_size=8, num_workers=workers, persistent_workers=bool(workers))
        self.user = self.truth.loader(site)  # replaced by Lightning: never iterated
        return loader

    def on_predict_epoch_start(self):
        self.fitted["iterated"] = True
        self.fitted["epochs"].append({"epoch": 0, "batches": [], "exhausted": True})

    def predict_step(self, batch, batch_idx):
        self.fitted["epochs"][-1]["batches"].append(batch.tolist())
        return self.layer(batch.float().unsqueeze(1))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", required=True, help="a scenario with WORKERS (scenarios/lightning_*.py)")
    parser.add_argument("--truth", required=True)
    parser.add_argument("--nproc", type=int, default=4)
    opts = parser.parse_args()
    os.makedirs(opts.truth, exist_ok=True)

    truth = Truth()
    scenario = load_scenario(opts.case)
    options = getattr(scenario, "TRAINER", {})
    trainer = L.Trainer(accelerator="cpu", devices=opts.nproc, strategy="ddp", max_epochs=2, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        num_sanity_val_steps=0, **options)
    replaced = options.get("use_distributed_sampler", True)
    model = Model(truth, scenario, replaced)
    # The loader Lightning iterates is built inside fit() (predict()): its
    # creation site is the user's call, this line.
    if hasattr(scenario, "PREDICT"):
        model.fitted = truth.loader(here()); trainer.predict(model, return_predictions=False)
    elif replaced:
        model.fitted = truth.loader(here()); trainer.fit(model)
    else:
        trainer.fit(model)
    truth.write(opts.truth, trainer.global_rank, trainer.world_size)
    end_process_group()


if __name__ == "__main__":
    main()
