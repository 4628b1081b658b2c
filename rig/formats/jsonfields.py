"""Typed reads from parsed JSON with messages that name the file, the field and what was expected.

Readers are strict: a ``Reader`` notes every key a format asks of its object, and once a file is
read ``check_fields`` refuses any key none asked for (a misspelt ``chain_lenght`` would
otherwise read as its default), naming it and the nearest known key."""
import difflib
import json
import math

from rig.formats.atomic import save_text_atomic


class FileFormatError(ValueError):
    """A file that cannot be read as the format it claims. ``str()`` is a one-line message."""

    def __init__(self, path, field, expected, got=None):
        detail = "" if got is None else f", got {_describe(got)}"
        where = f" field '{field}':" if field else ""
        super().__init__(f"{path}:{where} expected {expected}{detail}")
        self.path, self.field, self.expected = path, field, expected


class UnknownFieldError(FileFormatError):
    """A key no reader of the format asks for. ``str()`` is a one-line message naming the file,
    the key and the nearest known one."""

    def __init__(self, path, field, near=None):
        hint = f" (did you mean '{near}'?)" if near else ""
        ValueError.__init__(self, f"{path}: unknown field '{field}'{hint}")
        self.path, self.field, self.expected = path, field, "a known field"


def _describe(value):
    try:
        text = json.dumps(value, default=lambda v: type(v).__name__)
    except (RecursionError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def is_text(value):
    """Whether ``value`` can be written as UTF-8: valid JSON may hold lone surrogates ("\\ud800"),
    which no file, panel or font can take."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_NUMBER_TYPES = (int, float)  # but not bool: JSON's true and false are not numbers here


class Reader:
    """Reads fields of one JSON object, prefixing errors with the path to it ("bones[3].head")."""

    def __init__(self, path, obj, prefix=""):
        self.path, self.obj, self.prefix = path, obj, prefix
        if not isinstance(obj, dict):
            raise FileFormatError(path, prefix.rstrip("."), "an object", obj)
        self.asked, self.children = set(), []  # for check_fields

    def _take(self, key, default):
        """The value at ``key``, ``default`` when missing; a default of None: the key is required."""
        self.asked.add(key)
        return self.obj.get(key, default) if default is not None else self.required(key)

    def names(self):
        """The keys of an object that maps names (of bones...) to values: each is a known key."""
        self.asked.update(self.obj)
        return list(self.obj)

    def check_fields(self, within=True):
        """Refuse (UnknownFieldError) the first key of this object, or (``within``) of any object
        read through it, that no read asked for, with the asked key nearest it."""
        pending = [self]
        while pending:
            reader = pending.pop()
            if not reader.asked.issuperset(reader.obj):  # one set operation per object: large rigs load fast
                key = next(key for key in reader.obj if key not in reader.asked)  # the file's first
                near = difflib.get_close_matches(key, sorted(reader.asked), n=1)
                shown = key if len(key) <= 40 else key[:37] + "..."  # a message stays one short line
                raise UnknownFieldError(reader.path, reader.name(shown), near[0] if near else None)
            if within:
                pending += reversed(reader.children)

    def name(self, key):
        return f"{self.prefix}{key}"

    def fail(self, key, expected, got=None):
        raise FileFormatError(self.path, self.name(key), expected, got)

    def get(self, key, default):
        self.asked.add(key)
        return self.obj.get(key, default)

    def required(self, key):
        self.asked.add(key)
        if key not in self.obj:
            self.fail(key, "a value (the field is missing)")
        return self.obj[key]

    def string(self, key, default=None, choices=None, optional=False):
        value = self.get(key, default) if (default is not None or optional) else self.required(key)
        if value is None and optional:
            return None
        if not isinstance(value, str) or (choices and value not in choices):
            self.fail(key, f"one of {', '.join(choices)}" if choices else "a string", value)
        if not is_text(value):
            self.fail(key, "Unicode text (a lone surrogate such as \\ud800 is not a character)", value)
        return value

    def number(self, key, default=None, low=-math.inf, high=math.inf):
        value = self._take(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(key, "a finite number", value)
        if not low <= value <= high:
            self.fail(key, f"a number in [{low}, {high}]", value)
        return float(value)

    def integer(self, key, default=None, low=-math.inf, high=math.inf):
        value = self._take(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(key, f"an integer in [{low}, {high}]", value)
        return value

    def boolean(self, key, default=None):
        value = self._take(key, default)
        if not isinstance(value, bool):
            self.fail(key, "true or false", value)
        return value

    def vector(self, key, size, default=None, kind="number", bound=math.inf):
        """A list of ``size`` booleans, or of numbers of magnitude at most ``bound``. Checked with
        plain builtins: a rig reads two of these per bone, and 100,000-bone rigs must load quickly."""
        value = self._take(key, default)
        if isinstance(value, (list, tuple)) and len(value) == size:
            if kind == "bool" and all(type(v) is bool for v in value):
                return tuple(value)
            if kind == "number" and all(isinstance(v, _NUMBER_TYPES) and type(v) is not bool for v in value):
                try:
                    numbers = tuple(map(float, value))
                except OverflowError:
                    numbers = (math.inf,)
                if all(map(math.isfinite, numbers)) and max(map(abs, numbers), default=0.0) <= bound:
                    return numbers
        numbers = "finite numbers" if bound == math.inf else f"numbers of magnitude at most {bound:g}"
        self.fail(key, f"a list of {size} {numbers if kind == 'number' else 'booleans'}", value)

    def items(self, key, default=None):
        value = self._take(key, default)
        if not isinstance(value, list):
            self.fail(key, "a list", value)
        items = [Reader(self.path, item, f"{self.name(key)}[{i}].") for i, item in enumerate(value)]
        self.children += items
        return items

    def child(self, key, default=None):
        value = self._take(key, default)
        child = Reader(self.path, value, f"{self.name(key)}.")
        self.children.append(child)
        return child


# Integers with more digits than this are read as floats: a 400-digit literal becomes inf (and is
# refused as "a finite number") instead of raising OverflowError where a float is needed.
MAX_INT_DIGITS = 18


def _parse_int(text):
    return int(text) if len(text) <= MAX_INT_DIGITS + 1 else float(text)


def parse_json(text, path):
    """Parse JSON ``text`` (str or UTF-8 bytes) read from ``path``; malformed, non-UTF-8 or absurdly
    nested documents raise FileFormatError."""
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        return json.loads(text, parse_int=_parse_int)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FileFormatError(path, None, f"valid UTF-8 JSON ({e})") from e
    except RecursionError:
        raise FileFormatError(path, None, "JSON nested less deeply (arrays and objects nest too deep to read)") \
            from None


def load_json(path):
    """Parse a JSON file; a missing, unreadable, malformed or absurdly nested file raises FileFormatError."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FileFormatError(path, None, "a readable file", None) from e
    return parse_json(data, path)


def check_header(reader, format_name, supported_version):
    reader.string("format", choices=(format_name,))
    version = reader.integer("version", low=1)
    if version > supported_version:
        reader.fail("version", f"version {supported_version} or older (this file is newer than the app)", version)
    return version


# Files up to this size are indented for people to read; larger ones (a 100,000-bone rig) are written
# compact, since Python's JSON encoder indents only in pure Python, several times slower.
INDENT_BELOW = 1 << 20


def save_json_atomic(path, data):
    """Strict JSON (no NaN or Infinity: other tools cannot read them), newline-terminated,
    written atomically as ``save_bytes_atomic``. Non-finite numbers raise FileFormatError naming ``path``."""
    try:
        text = json.dumps(data, allow_nan=False)
        if len(text) < INDENT_BELOW:
            text = json.dumps(data, indent=1)
    except ValueError:
        raise FileFormatError(path, None, "finite numbers to write (a value is NaN or infinite)") from None
    save_text_atomic(path, text + "\n", suffix=".json")
