from .stateful_dataloader import StatefulDataLoader  # noqa: F401
