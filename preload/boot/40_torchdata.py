# accwatch bootstrap, part 6: what it hooks in torchdata: the
# StatefulDataLoader, which has its own __init__ and __iter__.

# --- torchdata -----------------------------------------------------------------

def _patch_torchdata(module):
    """torchdata's StatefulDataLoader: its own __init__ (no super) and
    __iter__ (no super, resets persistent iterators itself: see _reset); its
    iterators are _BaseDataLoaderIter subclasses that call super."""
    loader = getattr(module, "StatefulDataLoader", None)
    _patch(loader, "__init__", _wrap_loader_init)
    _patch(loader, "__iter__", _wrap_loader_iter)


_TORCHDATA = "torchdata.stateful_dataloader.stateful_dataloader"


def _wrap_init_subclass(original):
    """DataLoader.__init_subclass__: patches torchdata's StatefulDataLoader
    as its class is made (an import audit event may not follow its module's
    import, so the watched-module path alone can be late). Other subclasses
    are left alone."""
    def __init_subclass__(cls, **kwargs):
        if original is not None:
            original.__get__(None, cls)(**kwargs)
        else:
            super(_dl.DataLoader, cls).__init_subclass__(**kwargs)
        try:
            if (cls.__module__ == _TORCHDATA
                    and cls.__name__ == "StatefulDataLoader"):
                _patch(cls, "__init__", _wrap_loader_init)
                _patch(cls, "__iter__", _wrap_loader_iter)
        except Exception:
            _debug("__init_subclass__")
    return classmethod(__init_subclass__)
