"""What a program reads after decoding, against Google's Python protobuf: maps through the
map API (size, iteration, set, delete), each key once with its last value; enum values by
name and by number in every enum of Debian's protos and the test schemas. The typed
accessors, the message's own type, fields of another type and the copying string setter
are checked from C (native/lib/pbdyn/tests/pbdyn_api_test.c, in test_lib_pbdyn.py)."""

from __future__ import annotations

import random

import pytest

from pbdyn_support import (
    DECODERS,
    OK,
    SCALE,
    SYSTEM_PROTO,
    allkinds_set,
    debian_proto_files,
    descriptor_set,
    fill_random,
    google_classes,
    is_map,
    lib,
    py_dump,
)

MAP_TYPES = ("allkinds2.All", "allkinds3.All")


@pytest.fixture(scope="module")
def classes():
    return google_classes(allkinds_set())


def only_map(cls, msg, name: str):
    """A message of msg's type holding only its map field `name`."""
    out = cls()
    getattr(out, name).MergeFrom(getattr(msg, name))
    return out


def repeated_keys(cls, rng):
    """Two random messages of cls with the same map keys and new values, and their
    concatenation on the wire, where each shared key appears twice."""
    first, second = cls(), cls()
    fill_random(first, rng, max_depth=2, density=0.8, unknown=0)
    second.CopyFrom(first)
    fill_random(second, rng, max_depth=2, density=0.8, unknown=0)  # same keys, new values
    return first, second, first.SerializePartialToString() + second.SerializePartialToString()


def test_maps_keep_each_key_once_with_its_last_value(classes):
    """Two random messages concatenated on the wire: keys present in both appear twice,
    and the second value wins, in Google's parser and in the map API."""
    schema = lib().load_schema(allkinds_set())
    rng = random.Random(2024)
    duplicated = 0
    for i in range(60 * SCALE):
        name = MAP_TYPES[i % 2]
        cls = classes[name]
        first, second, data = repeated_keys(cls, rng)
        merged = cls.FromString(data)
        for fd in cls.DESCRIPTOR.fields:
            if not is_map(fd):
                continue
            want_map = getattr(merged, fd.name)
            duplicated += sum(1 for k in getattr(first, fd.name) if k in getattr(second, fd.name))
            want = (f"size {len(want_map)} iterated {len(want_map)}\n"
                    + py_dump(only_map(cls, merged, fd.name)))
            for dec in DECODERS.values():
                st, got = schema.map_rebuild(name, data, fd.name, dec)
                assert st == OK and got == want, (name, fd.name, data.hex())
    assert duplicated > 100  # the corpus does repeat keys


def test_map_delete_matches_google_del(classes):
    """Keys deleted from maps whose keys the wire repeats (two random messages
    concatenated), about half of those present and some absent: the message re-encoded
    is Google's with `del` of the same keys, parsed back by Google and by each of our
    decoders, whose every entry of a key went, not only its last."""
    schema = lib().load_schema(allkinds_set())
    rng = random.Random(2025)
    duplicated = absent = 0
    for i in range(60 * SCALE):
        name = MAP_TYPES[i % 2]
        cls = classes[name]
        first, second, data = repeated_keys(cls, rng)
        stranger = cls()
        fill_random(stranger, rng, max_depth=2, density=0.8, unknown=0)
        merged = cls.FromString(data)
        for fd in cls.DESCRIPTOR.fields:
            if not is_map(fd):
                continue
            have = getattr(merged, fd.name)
            gone = {k for k in have if rng.random() < 0.5}
            missing = {k for k in getattr(stranger, fd.name) if k not in have}
            keys = only_map(cls, merged, fd.name)
            keys.MergeFrom(only_map(cls, stranger, fd.name))
            key_map = getattr(keys, fd.name)
            for k in [k for k in key_map if k not in gone | missing]:
                del key_map[k]
            want = cls()
            want.CopyFrom(merged)
            for k in gone:
                del getattr(want, fd.name)[k]
            left = len(getattr(want, fd.name))
            duplicated += sum(1 for k in gone
                              if k in getattr(first, fd.name) and k in getattr(second, fd.name))
            absent += len(missing)
            want_dump = py_dump(want)  # the Python dumps are most of this test's time:
            google_dump = {}  # each made once (the decoders' encodings are often equal)
            for dec in DECODERS.values():
                st, enc, counts = schema.map_delete(name, data, fd.name,
                                                    keys.SerializePartialToString(), dec)
                assert st == OK and counts == (len(gone), len(missing), left, left), \
                    (name, fd.name, data.hex())
                if enc not in google_dump:
                    google_dump[enc] = py_dump(cls.FromString(enc))
                assert google_dump[enc] == want_dump, (name, fd.name)
                st, dump = schema.decode_dump(name, enc, dec)
                assert st == OK and dump == want_dump, (name, fd.name)
    assert duplicated > 50 and absent > 50  # the corpus deletes repeated and absent keys


@pytest.mark.parametrize("where", ["allkinds", "debian"])
def test_enum_names_and_numbers_match_google(where):
    if where == "allkinds":
        fds = allkinds_set()
    else:
        fds = descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,))
    schema = lib().load_schema(fds)
    pool_classes = google_classes(fds)
    enums = {}
    for cls in pool_classes.values():
        for e in cls.DESCRIPTOR.enum_types:
            enums[e.full_name] = e
        for f in cls.DESCRIPTOR.file.enum_types_by_name.values():
            enums[f.full_name] = f
    assert len(enums) >= (3 if where == "allkinds" else 8)  # descriptor.proto: 6
    for full_name, e in sorted(enums.items()):
        want = "".join(f"{v.name}={v.number} by_name={e.values_by_name[v.name].number} "
                       f"by_number={e.values_by_number[v.number].name}\n" for v in e.values)
        st, got = schema.enum_listing(full_name)
        assert st == OK and got == want, full_name
