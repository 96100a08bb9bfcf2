# SPDX-License-Identifier: MIT
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
    are left alone. In C (_aw.around, its target the one before names): an
    error of the next __init_subclass__ (a class keyword nobody takes) shows
    no frame of ours."""
    def before(cls, **kwargs):
        if original is not None:
            return original.__get__(None, cls)
        return super(_dl.DataLoader, cls).__init_subclass__

    def after(bound, result, raised):
        if raised is None:
            try:
                cls = getattr(bound, "__self__", None)
                if (isinstance(cls, type) and cls.__module__ == _TORCHDATA
                        and cls.__name__ == "StatefulDataLoader"):
                    _patch(cls, "__init__", _wrap_loader_init)
                    _patch(cls, "__iter__", _wrap_loader_iter)
            except Exception:
                _debug("__init_subclass__")
        return result

    def __init_subclass__(cls, **kwargs):  # should the trampoline fail
        bound = before(cls)
        return after(bound, bound(**kwargs), None)

    call = _aw.around(None, before, after)
    if call is None:
        return classmethod(__init_subclass__)
    wrapper = _Wrapped(call)
    wrapper.__name__ = "__init_subclass__"
    wrapper.__qualname__ = "DataLoader.__init_subclass__"
    wrapper.__module__ = getattr(_dl, "__name__", "torch.utils.data.dataloader")
    wrapper._accwatch_wrapper = True
    return classmethod(wrapper)
