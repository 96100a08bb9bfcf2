# SPDX-License-Identifier: MIT
# accwatch bootstrap, part 5: what it hooks in HF datasets (patched when
# datasets.arrow_dataset is imported): the contiguous selects (shard's
# default, select(range(...)), split_dataset_by_node) that slice a
# Dataset's table, and so leave no indices mapping behind.

# --- datasets ----------------------------------------------------------------

# Table slices known: the key of a slice's rows (see _table_key) ->
# (offset, base_len, root): its row r is row offset + r of the table root,
# which has base_len rows. The oldest are dropped past _SLICES_MAX.
_hf_slices = {}
_SLICES_MAX = 4096


def _table_key(table):
    """Where a datasets Table's rows begin in memory: the first buffer of
    its first column's first chunk, the chunk's offset in it and the row
    count. A cast or a copy (with_format, shuffle's new Dataset) makes new
    table objects over the same buffers; the key stays. None when the
    table has no column or no buffer."""
    table = getattr(table, "table", table)  # datasets' wrapper of pyarrow's
    if table is None or table.num_columns == 0:
        return None
    column = table.column(0)
    if column.num_chunks == 0:
        return None
    chunk = column.chunk(0)
    for buffer in chunk.buffers():
        if buffer is not None:
            return buffer.address, chunk.offset, table.num_rows
    return None


def _hf_slice(table):
    """(offset, base_len, root) of a table: a recorded slice's, else the
    table itself (offset 0)."""
    key = _table_key(table)
    known = _hf_slices.get(key) if key is not None else None
    if known is not None:
        return known
    return 0, _int(_attr(table, "num_rows")), key


def _hf_root(dataset):
    """The table at the bottom of a HF dataset's rows, as a _flat_map
    bottom."""
    return "table", _hf_slice(_attr(dataset, "_data"))[2]


def _hf_map(dataset):
    """The _index_map of a HF datasets.Dataset: its positions as rows of
    the table its table was sliced from (through its indices mapping when
    it has one); None when it has neither."""
    data = _attr(dataset, "_data")
    if data is None:
        return None
    table = _attr(dataset, "_indices")
    offset, base_len, _ = _hf_slice(data)
    if table is None and offset == 0 and base_len == _int(data.num_rows):
        return None
    if table is None:
        rows = list(range(offset, offset + data.num_rows))
    else:
        rows = table.column(0).to_pylist()
        if offset:
            rows = [offset + row for row in rows]
    return "datasets", rows, base_len, None


def _hf_index_map(obj):
    """_hf_map of a HF datasets object, None of anything else."""
    if (getattr(type(obj), "__module__", "") or "").startswith("datasets."):
        return _hf_map(obj)
    return None


_index_map_finders.append(_hf_index_map)
_map_roots["datasets"] = _hf_root


def _note_slice(parent, child, start):
    """child is parent's rows start.. when child's table is a slice of
    parent's (no indices mapping: with one, datasets slices that instead)."""
    if child is parent or _attr(child, "_indices") is not None:
        return
    key = _table_key(_attr(child, "_data"))
    if key is None:
        return
    offset, base_len, root = _hf_slice(_attr(parent, "_data"))
    _hf_slices.pop(key, None)
    _hf_slices[key] = (offset + start, base_len, root)
    if len(_hf_slices) > _SLICES_MAX:
        _hf_slices.pop(next(iter(_hf_slices)))


def _wrap_select_contiguous(original):
    def before(self, *args, **kwargs):
        return self, args[0] if args else kwargs.get("start")

    def after(token, result, raised):
        if raised is None:
            try:
                self, start = token
                if isinstance(start, int):
                    _note_slice(self, result, start)
            except Exception:
                _debug("datasets slice")
        return result
    return _wrap(original, before, after)


def _patch_datasets(module):
    _patch(getattr(module, "Dataset", None), "_select_contiguous",
           _wrap_select_contiguous)
