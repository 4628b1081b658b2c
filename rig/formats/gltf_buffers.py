"""Opening glTF 2.0 containers (.gltf + .bin, .glb, data URIs) and decoding accessors with numpy.

pygltflib splits the container and turns the JSON into dataclasses; it checks no types, ranges or
sizes, so everything read from it here is validated before use, and every failure is a
``FileFormatError`` naming the file, the JSON path ("accessors[3].count") and what was expected.
"""
import base64
import binascii
import dataclasses
import json
import math
import os
import re
import struct
import urllib.parse
import warnings

import numpy as np
import pygltflib

from rig.formats.jsonfields import FileFormatError, parse_json

GLB_MAGIC = b"glTF"
COMPONENT_DTYPES = {5120: "<i1", 5121: "<u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
TYPE_SIZES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
FLOAT = 5126
# An accessor without a buffer view is all zeros (plus sparse values): cap what a file can make us allocate.
MAX_ZERO_FILLED = 1 << 24
TOP_LEVEL = {"accessors": pygltflib.Accessor, "animations": pygltflib.Animation, "bufferViews": pygltflib.BufferView,
             "buffers": pygltflib.Buffer, "meshes": pygltflib.Mesh, "nodes": pygltflib.Node, "skins": pygltflib.Skin}
DATA_URI = re.compile(r"data:(application/octet-stream|application/gltf-buffer)(;[^,;]*)*;base64,(.*)", re.S)


def is_int(value, low=0, high=math.inf):
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


NUMBER_TYPES = (int, float)


def finite_numbers(value, size):
    """``value`` as a tuple of ``size`` finite floats, or None when it is not one. Plain Python: it
    runs for every node's translation, rotation and scale."""
    if not isinstance(value, (list, tuple)) or len(value) != size:
        return None
    if not all(type(v) in NUMBER_TYPES for v in value):  # exact types: JSON gives these, and bool is no number
        return None
    try:
        numbers = tuple(map(float, value))
    except OverflowError:
        return None
    return numbers if all(map(math.isfinite, numbers)) else None


DIRECT = {key: (kind, frozenset(field.name for field in dataclasses.fields(kind)))
          for key, kind in (("nodes", pygltflib.Node), ("skins", pygltflib.Skin))}


class GltfFile:
    """A parsed glTF file: ``gltf`` (pygltflib.GLTF2), its buffers loaded on demand, warnings."""

    def __init__(self, path):
        self.path = str(path)
        self.directory = os.path.dirname(os.path.abspath(self.path))
        self.warnings = []
        self._buffers = {}
        self._glb_blob = None
        data = self._read_bytes()
        if data[:4] == GLB_MAGIC:
            self.gltf = self._parse_glb(data)
        else:
            self.gltf = self._parse_json(data)
        self._check_top_level()

    def fail(self, field, expected, got=None):
        raise FileFormatError(self.path, field, expected, got)

    def _read_bytes(self):
        try:
            with open(self.path, "rb") as f:
                return f.read()
        except OSError as e:
            raise FileFormatError(self.path, None, "a readable file") from e

    def _parse_glb(self, data):
        if len(data) < 20:
            self.fail("", "a GLB file of at least 20 bytes (the file is truncated)", len(data))
        version, length = struct.unpack_from("<II", data, 4)
        if version != 2:
            self.fail("", "GLB container version 2", version)
        if length != len(data):
            self.fail("", f"a GLB file of {length} bytes as its header says (the file has {len(data)})")
        json_length, json_type = struct.unpack_from("<I4s", data, 12)
        if json_type != b"JSON" or 20 + json_length > len(data):
            self.fail("", "a GLB whose first chunk is a complete JSON chunk")
        top = self._check_json_text(data[20:20 + json_length])
        start = 20 + json_length
        if start + 8 <= len(data):
            bin_length, bin_type = struct.unpack_from("<I4s", data, start)
            if bin_type == b"BIN\0" and start + 8 + bin_length <= len(data):
                self._glb_blob = bytes(data[start + 8:start + 8 + bin_length])
        return self._document(top)

    def _parse_json(self, data):
        return self._document(self._check_json_text(data))

    def _check_json_text(self, data):
        """The parsed top-level object, with clear messages for the common failures before the
        library sees it."""
        top = parse_json(data, self.path)
        if not isinstance(top, dict):
            self.fail("", "glTF: a JSON object at the top level", top)
        asset = top.get("asset")
        if not isinstance(asset, dict) or not isinstance(asset.get("version"), str):
            self.fail("asset.version", "a glTF version string (the field is missing)")
        if not asset["version"].startswith("2."):
            self.fail("asset.version", "glTF 2.x", asset["version"])
        return top

    def _document(self, top):
        """pygltflib's document for the parsed ``top``. Its decoder introspects types value by
        value (a millisecond a node: 100 s for 100,000 joints), so nodes and skins, the bulk of a
        large rig, are built with their dataclasses directly and the library decodes the rest."""
        direct = {key: top[key] for key in DIRECT if isinstance(top.get(key), list)}
        gltf = self._library_call(pygltflib.GLTF2.gltf_from_json,
                                  json.dumps({k: v for k, v in top.items() if k not in direct}))
        for key, items in direct.items():
            setattr(gltf, key, [self._direct(key, i, item) for i, item in enumerate(items)])
        return gltf

    def _direct(self, key, i, item):
        if not isinstance(item, dict):
            self.fail(f"{key}[{i}]", "an object", item)
        kind, fields = DIRECT[key]
        return kind(**{name: value for name, value in item.items() if name in fields})

    def _library_call(self, function, argument):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = function(argument)
            except Exception as e:  # the library raises anything on hostile input; report it on one line
                self.fail("", f"a well-formed glTF document ({type(e).__name__}: {str(e)[:80]})")
        self.warnings += [f"{self.path}: {w.message}".split("Please open")[0].strip() for w in caught]
        if result is None:
            self.fail("", "a GLB file with a JSON chunk")
        return result

    def _check_top_level(self):
        for name, kind in TOP_LEVEL.items():
            self.objects(getattr(self.gltf, name), kind, name)

    def objects(self, items, kind, where):
        """``items`` checked to be a list of glTF objects of class ``kind`` (pygltflib leaves
        whatever the JSON had, such as null, where an object belongs)."""
        if not isinstance(items, list):
            self.fail(where, "a list", items)
        for k, item in enumerate(items):
            self.object(item, kind, f"{where}[{k}]")
        return items

    def object(self, item, kind, where):
        if not isinstance(item, kind):
            self.fail(where, f"a glTF {kind.__name__} object", item)
        return item

    def item(self, kind, index, where):
        """``gltf.<kind>[index]``, checking the index; ``where`` names the referring field."""
        items = getattr(self.gltf, kind)
        if not is_int(index, 0, len(items) - 1):
            self.fail(where, f"an index into {kind} (0..{len(items) - 1})", index)
        return items[index]

    def buffer(self, index, where):
        if index not in self._buffers:
            self._buffers[index] = self._load_buffer(index, self.item("buffers", index, where))
        return self._buffers[index]

    def _load_buffer(self, index, buffer):
        field = f"buffers[{index}]"
        uri = buffer.uri
        if uri is None:
            if index != 0 or self._glb_blob is None:
                self.fail(f"{field}.uri", "a URI (only buffer 0 of a GLB file may use its binary chunk)")
            data = self._glb_blob
        elif not isinstance(uri, str):
            self.fail(f"{field}.uri", "a string", uri)
        elif uri.startswith("data:"):
            data = self._decode_data_uri(uri, f"{field}.uri")
        else:
            data = self._read_relative(uri, f"{field}.uri")
        length = buffer.byteLength
        if not is_int(length, 1):
            self.fail(f"{field}.byteLength", "a positive integer", length)
        if len(data) < length:
            self.fail(f"{field}.byteLength", f"at most the {len(data)} bytes the buffer holds (truncated data)", length)
        return data

    def _decode_data_uri(self, uri, field):
        match = DATA_URI.fullmatch(uri)
        if match is None:
            self.fail(field, "a base64 data URI of type application/octet-stream or application/gltf-buffer",
                      uri[:40])
        try:
            return base64.b64decode(match.group(3), validate=True)
        except (binascii.Error, ValueError) as e:
            self.fail(field, f"valid base64 data ({e})")

    def _read_relative(self, uri, field):
        """A file named relative to the .gltf; URLs and absolute paths are refused."""
        relative = urllib.parse.unquote(uri)
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", relative) or os.path.isabs(relative):
            self.fail(field, "a relative file path or a data URI", uri[:40])
        try:
            with open(os.path.join(self.directory, relative), "rb") as f:
                return f.read()
        except OSError:
            self.fail(field, "a file that exists beside the glTF file", uri[:40])

    def accessor(self, index, where, types, floats_only=False):
        """Decode accessor ``index`` into an array (count, components): float64 for float and
        normalised components, int64 otherwise. ``types`` lists the accessor types allowed."""
        accessor = self.item("accessors", index, where)
        field = f"accessors[{index}]"
        kind = accessor.type
        if kind not in types:
            self.fail(f"{field}.type", f"one of {', '.join(types)} for {where}", kind)
        component = accessor.componentType
        if component not in COMPONENT_DTYPES or (floats_only and component != FLOAT):
            allowed = "5126 (float)" if floats_only else "a glTF component type"
            self.fail(f"{field}.componentType", allowed, component)
        size = TYPE_SIZES[kind]
        if kind in ("MAT2", "MAT3") and component != FLOAT:
            self.fail(f"{field}.componentType", "float for a matrix accessor", component)
        count = accessor.count
        if not is_int(count, 1):
            self.fail(f"{field}.count", "a positive integer", count)
        dtype = np.dtype(COMPONENT_DTYPES[component])
        if accessor.bufferView is None:
            if count * size > MAX_ZERO_FILLED:
                self.fail(f"{field}.count", f"at most {MAX_ZERO_FILLED // size} elements without a buffer view", count)
            values = np.zeros((count, size), dtype)
        else:
            values = self._view_elements(accessor.bufferView, accessor.byteOffset, count, size, dtype, field)
        if accessor.sparse is not None:
            self.object(accessor.sparse, pygltflib.Sparse, f"{field}.sparse")
            self._apply_sparse(accessor.sparse, values, size, dtype, f"{field}.sparse")
        return self._convert(values, component, bool(accessor.normalized))

    def _view_elements(self, view_index, byte_offset, count, size, dtype, field):
        view = self.item("bufferViews", view_index, f"{field}.bufferView")
        vfield = f"bufferViews[{view_index}]"
        byte_offset = 0 if byte_offset is None else byte_offset
        if not is_int(byte_offset) or byte_offset % dtype.itemsize:
            self.fail(f"{field}.byteOffset", f"a non-negative multiple of {dtype.itemsize}", byte_offset)
        element = size * dtype.itemsize
        stride = view.byteStride if view.byteStride is not None else element
        if not is_int(stride, element, 252) or stride % dtype.itemsize:
            self.fail(f"{vfield}.byteStride", f"a multiple of {dtype.itemsize} in [{element}, 252]", stride)
        view_offset = 0 if view.byteOffset is None else view.byteOffset
        if not is_int(view_offset):
            self.fail(f"{vfield}.byteOffset", "a non-negative integer", view_offset)
        if not is_int(view.byteLength, 1):
            self.fail(f"{vfield}.byteLength", "a positive integer", view.byteLength)
        data = self.buffer(view.buffer, f"{vfield}.buffer")
        if view_offset + view.byteLength > len(data):
            self.fail(f"{vfield}.byteLength", f"a view inside its buffer of {len(data)} bytes", view.byteLength)
        needed = byte_offset + stride * (count - 1) + element
        if needed > view.byteLength:
            self.fail(f"{field}.count", f"at most the elements that fit in its {view.byteLength}-byte buffer view",
                      count)
        start = view_offset + byte_offset
        if start % dtype.itemsize:
            self.fail(f"{vfield}.byteOffset", f"data aligned to {dtype.itemsize} bytes", view_offset)
        array = np.ndarray((count, size), dtype, buffer=data, offset=start, strides=(stride, dtype.itemsize))
        return array.copy()

    def _apply_sparse(self, sparse, values, size, dtype, field):
        count = sparse.count
        if not is_int(count, 1, len(values)):
            self.fail(f"{field}.count", f"an integer in [1, {len(values)}]", count)
        indices_info = self.object(sparse.indices, pygltflib.AccessorSparseIndices, f"{field}.indices")
        values_info = self.object(sparse.values, pygltflib.AccessorSparseValues, f"{field}.values")
        if indices_info.componentType not in (5121, 5123, 5125):
            self.fail(f"{field}.indices.componentType", "5121, 5123 or 5125", indices_info.componentType)
        index_dtype = np.dtype(COMPONENT_DTYPES[indices_info.componentType])
        indices = self._view_elements(indices_info.bufferView, indices_info.byteOffset, count, 1, index_dtype,
                                      f"{field}.indices")[:, 0].astype(np.int64)
        if np.any(np.diff(indices) <= 0) or indices[-1] >= len(values):
            self.fail(f"{field}.indices", f"strictly increasing indices below {len(values)}")
        values[indices] = self._view_elements(values_info.bufferView, values_info.byteOffset, count, size, dtype,
                                              f"{field}.values")

    @staticmethod
    def _convert(values, component, normalized):
        if component == FLOAT:
            return values.astype(float)
        if normalized:
            scale = float(np.iinfo(values.dtype).max)
            return np.maximum(values.astype(float) / scale, -1.0)
        return values.astype(np.int64)
