# Test stand-in derived from HuggingFace Accelerate (Apache-2.0), src/accelerate/logging.py, v1.x:
# only `get_logger` (accelerate's MultiProcessAdapter is left out).
import logging


def get_logger(name: str, log_level: str = None):
    logger = logging.getLogger(name)
    if log_level is not None:
        logger.setLevel(log_level.upper())
    return logger
