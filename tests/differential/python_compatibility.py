#!/usr/bin/python3
"""Differential test 2 of issue 3: python3-avro's answer to "can reader read writer".

Reads pairs, one per line: <id> TAB <reader JSON> TAB <writer JSON>.
Writes one line per pair:
    <id> TAB ok TAB <v0 v1 ... v15>      each vK is 'c' (compatible) or 'i' (incompatible)
    <id> TAB parse-error TAB <message>
    <id> TAB error TAB <class: message>

v0 is python3-avro's own ReaderWriterCompatibilityChecker, unchanged (the
SchemaCompatibility approach). v1..v15 are the same checker with the rules
that reference §6.3 says the resolving grammar (which Pulsar follows) does
differently switched to the grammar's behaviour, one bit each:
    1  record names are never compared
    2  enum symbols are not checked (a missing symbol is a decode-time failure)
    4  a non-union writer against a reader union takes the first matching
       branch (Resolver.ReaderUnion.firstMatchingBranch) instead of any branch
    8  aliases are applied as Schema.applyAliases applies them: an alias is a
       full name (a bare alias is qualified with the reader type's namespace),
       and a reader field's aliases only rename fields of the writer record
       whose full name is the reader record's (or one of its aliases)
The C++ side explains a difference from our checker by the smallest set of
bits that makes python agree with us; none => unexplained => the test fails.

Usage: python_compatibility.py <input> <output>
"""

import sys

import avro.schema
from avro.compatibility import (
    ReaderWriterCompatibilityChecker,
    SchemaCompatibilityType,
    SchemaIncompatibilityType,
    CompatibleResult,
    check_fixed_size,
    check_reader_enum_contains_writer_enum,
    check_schema_names,
    incompatible,
    merge,
)

RECORD_NAMES, ENUM_SYMBOLS, FIRST_MATCH, ALIASES = 1, 2, 4, 8
VARIANTS = 16
NAMED = {"record", "enum", "fixed"}
# §6.3 promotions into a reader-union branch (Avro 1.11 Resolver).
UNION_PROMOTIONS = {
    ("int", "long"), ("int", "double"), ("int", "float"), ("long", "double"), ("long", "float"),
    ("float", "double"), ("string", "bytes"), ("bytes", "string"),
}
# §6.3 promotions between non-union types.
PROMOTIONS = UNION_PROMOTIONS


class GrammarLike(ReaderWriterCompatibilityChecker):
    """python3-avro's checker with some rules replaced by the grammar's (see module doc)."""

    def __init__(self, mask):
        super().__init__()
        self.mask = mask

    def calculate_compatibility(self, reader, writer, location):
        rt, wt = reader.type, writer.type
        if rt == wt and rt in NAMED and self.mask & (RECORD_NAMES | ENUM_SYMBOLS | ALIASES):
            return self.named(reader, writer, location)
        if rt == "union" and wt != "union" and self.mask & FIRST_MATCH:
            j = first_matching_branch(reader, writer)
            if j is None:
                return incompatible(SchemaIncompatibilityType.missing_union_branch, "no first match", location)
            return self.get_compatibility(reader.schemas[j], writer, str(j), location)
        return super().calculate_compatibility(reader, writer, location)

    def named(self, reader, writer, location):
        result = CompatibleResult
        if not (reader.type == "record" and self.mask & RECORD_NAMES):
            result = merge(result, self.names(reader, writer, location))
        if reader.type == "fixed":
            result = merge(result, check_fixed_size(reader, writer, location))
        if reader.type == "enum" and not self.mask & ENUM_SYMBOLS:
            result = merge(result, check_reader_enum_contains_writer_enum(reader, writer, location))
        if reader.type == "record":
            result = merge(result, self.record_fields(reader, writer, location))
        return result

    def names(self, reader, writer, location):
        if not self.mask & ALIASES:
            return check_schema_names(reader, writer, location)
        if reader.name == writer.name or writer.fullname in qualified_aliases(reader):
            return CompatibleResult
        return incompatible(SchemaIncompatibilityType.name_mismatch, "expected: " + writer.fullname, location + ["name"])

    def record_fields(self, reader, writer, location):
        if not self.mask & ALIASES:
            return self.check_reader_writer_record_fields(reader, writer, location)
        use_aliases = writer.fullname == reader.fullname or writer.fullname in qualified_aliases(reader)
        result = CompatibleResult
        for i, rf in enumerate(reader.fields):
            wf = writer.fields_dict.get(rf.name)
            for alias in (rf.props.get("aliases") or []) if use_aliases and wf is None else []:
                wf = wf or writer.fields_dict.get(alias)
            where = location + ["fields", str(i)]
            if wf is not None:
                result = merge(result, self.get_compatibility(rf.type, wf.type, "type", where))
            elif not rf.has_default:
                result = merge(result, incompatible(SchemaIncompatibilityType.reader_field_missing_default_value, rf.name, where))
        return result


def qualified_aliases(schema):
    space = schema.fullname.rpartition(".")[0]
    aliases = schema.props.get("aliases") or []
    return {a if "." in a or not space else space + "." + a for a in aliases}


def first_matching_branch(reader_union, writer):
    structure = None
    for j, b in enumerate(reader_union.schemas):
        if b.type != writer.type:
            continue
        if b.type not in NAMED:
            return j
        if b.fullname == writer.fullname:
            return j
        if b.type == "record" and not has_match_error(b, writer, set()):
            if structure is None or b.name == writer.name:
                structure = j
    if structure is not None:
        return structure
    for j, b in enumerate(reader_union.schemas):
        if (writer.type, b.type) in UNION_PROMOTIONS:
            return j
    return None


def has_match_error(reader, writer, seen):
    """Resolver hasMatchError(RecordAdjust.resolve(w, r)): the record itself or one of its
    field actions is an error action (not a deeper one)."""
    key = (id(reader), id(writer))
    if key in seen:
        return False
    seen.add(key)
    wfields = writer.fields_dict
    for rf in reader.fields:
        if rf.name not in wfields and not rf.has_default:
            return True
    return any(is_error_action(rf.type, wfields[rf.name].type, seen) for rf in reader.fields if rf.name in wfields)


def is_error_action(reader, writer, seen):
    rt, wt = reader.type, writer.type
    if wt == "union":
        return False
    if rt == wt:
        if rt == "enum":
            return reader.name != writer.name
        if rt == "fixed":
            return reader.name != writer.name or reader.size != writer.size
        if rt == "record":
            return any(rf.name not in writer.fields_dict and not rf.has_default for rf in reader.fields)
        return False
    if rt == "union":
        return first_matching_branch(reader, writer) is None
    return (wt, rt) not in PROMOTIONS


def answer(reader_text, writer_text):
    try:
        reader = avro.schema.parse(reader_text)
        writer = avro.schema.parse(writer_text)
    except avro.errors.SchemaParseException as e:
        return "parse-error\t" + clean(str(e))
    except Exception as e:  # anything else the parser raises
        return "error\t" + clean(type(e).__name__ + ": " + str(e))
    verdicts = []
    for mask in range(VARIANTS):
        try:
            r = GrammarLike(mask).get_compatibility(reader, writer)
        except RecursionError as e:
            return "error\t" + clean("RecursionError: " + str(e))
        except Exception as e:
            return "error\t" + clean(type(e).__name__ + ": " + str(e))
        verdicts.append("c" if r.compatibility is SchemaCompatibilityType.compatible else "i")
    return "ok\t" + "".join(verdicts)


def clean(s):
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def main():
    if len(sys.argv) != 3:
        print("usage: python_compatibility.py <input> <output>", file=sys.stderr)
        return 2
    n = 0
    with open(sys.argv[1], encoding="utf-8") as inp, open(sys.argv[2], "w", encoding="utf-8") as out:
        for line in inp:
            line = line.rstrip("\n")
            if not line:
                continue
            pair_id, reader_text, writer_text = line.split("\t")
            out.write(pair_id + "\t" + answer(reader_text, writer_text) + "\n")
            n += 1
    print(f"python_compatibility: {n} pairs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
