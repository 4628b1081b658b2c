"""Typed reads from parsed JSON with messages that name the file, the field and what was expected."""
import json
import math
import os
import tempfile


class FileFormatError(ValueError):
    """A file that cannot be read as the format it claims. ``str()`` is a one-line message."""

    def __init__(self, path, field, expected, got=None):
        detail = "" if got is None else f", got {_describe(got)}"
        where = f" field '{field}':" if field else ""
        super().__init__(f"{path}:{where} expected {expected}{detail}")
        self.path, self.field, self.expected = path, field, expected


def _describe(value):
    text = json.dumps(value, default=lambda v: type(v).__name__)
    return text if len(text) <= 40 else text[:37] + "..."


class Reader:
    """Reads fields of one JSON object, prefixing errors with the path to it ("bones[3].head")."""

    def __init__(self, path, obj, prefix=""):
        self.path, self.obj, self.prefix = path, obj, prefix
        if not isinstance(obj, dict):
            raise FileFormatError(path, prefix.rstrip("."), "an object", obj)

    def name(self, key):
        return f"{self.prefix}{key}"

    def fail(self, key, expected, got=None):
        raise FileFormatError(self.path, self.name(key), expected, got)

    def get(self, key, default):
        return self.obj.get(key, default)

    def required(self, key):
        if key not in self.obj:
            self.fail(key, "a value (the field is missing)")
        return self.obj[key]

    def string(self, key, default=None, choices=None, optional=False):
        value = self.obj.get(key, default) if (default is not None or optional) else self.required(key)
        if value is None and optional:
            return None
        if not isinstance(value, str) or (choices and value not in choices):
            self.fail(key, f"one of {', '.join(choices)}" if choices else "a string", value)
        return value

    def number(self, key, default=None, low=-math.inf, high=math.inf):
        value = self.obj.get(key, default) if default is not None else self.required(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(key, "a finite number", value)
        if not low <= value <= high:
            self.fail(key, f"a number in [{low}, {high}]", value)
        return float(value)

    def integer(self, key, default=None, low=-math.inf, high=math.inf):
        value = self.obj.get(key, default) if default is not None else self.required(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(key, f"an integer in [{low}, {high}]", value)
        return value

    def boolean(self, key, default=None):
        value = self.obj.get(key, default) if default is not None else self.required(key)
        if not isinstance(value, bool):
            self.fail(key, "true or false", value)
        return value

    def vector(self, key, size, default=None, kind="number"):
        value = self.obj.get(key, default) if default is not None else self.required(key)
        ok = isinstance(value, (list, tuple)) and len(value) == size
        if ok and kind == "number":
            ok = all(not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) for v in value)
        if ok and kind == "bool":
            ok = all(isinstance(v, bool) for v in value)
        if not ok:
            self.fail(key, f"a list of {size} {'finite numbers' if kind == 'number' else 'booleans'}", value)
        return tuple(float(v) for v in value) if kind == "number" else tuple(value)

    def items(self, key, default=None):
        value = self.obj.get(key, default) if default is not None else self.required(key)
        if not isinstance(value, list):
            self.fail(key, "a list", value)
        return [Reader(self.path, item, f"{self.name(key)}[{i}].") for i, item in enumerate(value)]

    def child(self, key, default=None):
        value = self.obj.get(key, default) if default is not None else self.required(key)
        return Reader(self.path, value, f"{self.name(key)}.")


def load_json(path):
    """Parse a JSON file; a missing, unreadable or malformed file raises FileFormatError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FileFormatError(path, None, "a readable file", None) from e
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FileFormatError(path, None, f"valid UTF-8 JSON ({e})") from e


def check_header(reader, format_name, supported_version):
    reader.string("format", choices=(format_name,))
    version = reader.integer("version", low=1)
    if version > supported_version:
        reader.fail("version", f"version {supported_version} or older (this file is newer than the app)", version)
    return version


def save_json_atomic(path, data):
    """JSON (indented, newline-terminated) written atomically, as ``save_bytes_atomic``."""
    save_text_atomic(path, json.dumps(data, indent=1) + "\n", suffix=".json")


def save_text_atomic(path, text, suffix=".tmp"):
    """UTF-8 text with the newlines as given, written atomically (``save_bytes_atomic``)."""
    save_bytes_atomic(path, text.encode("utf-8"), suffix)


def save_bytes_atomic(path, data, suffix=""):
    """Write ``data`` to a temporary file beside ``path``, then rename over it, so a crash never
    leaves a half-written file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
