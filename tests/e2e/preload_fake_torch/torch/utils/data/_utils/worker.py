# SPDX-License-Identifier: MIT
# Stand-in for torch's worker info.
_worker_info = None


class WorkerInfo(object):
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


def get_worker_info():
    return _worker_info
