"""Checks a codec against the golden vectors; runs on MicroPython and CPython.

    micropython hardware/protocol/check_vectors.py DIR hardware/protocol/vectors.json

Imports ``wire.codec`` from DIR (``host/tablesense/onboard``, or a directory the
build step filled: the very files the firmware ships), checks every vector (each
bad stream fed at once and byte by byte), and prints one JSON object:
``{"implementation", "checked", "failures", "signed_checked"}``
(``signed_checked``: the vectors of the optional signing
section, checked when the codec has ``SigningKey``; protocol.md section 2a).
Exit status 0 when nothing failed, 1 when a vector failed, 2 (one line on
stderr) when the arguments are wrong: missing, no ``wire`` package in DIR, or a
vectors file that cannot be read. Untyped on purpose: plain MicroPython.
"""

import json
import sys


def same(a, b):
    """Equal, with floats (conf) compared to 1e-6: MCU ports may use float32."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) < 1e-6
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(a.keys()) == sorted(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(a[i], b[i]) for i in range(len(a)))
    return a == b


def items_of(codec, results):
    out = []
    for r in results:
        if isinstance(r, codec.Frame):
            out.append({"frame": r.to_dict()})
        else:
            out.append({"error": r.kind, "offset": r.offset})
    return out


def check(codec, vectors):
    failures = []
    checked = 0
    for v in vectors["good"]:
        checked += 1
        want = v["frame"]
        try:
            data = codec.encode(
                v["mtype"], want["fields"], want["reader"], want["seq"], want["flags"]
            )
            if data.hex() != v["hex"]:
                failures.append([v["name"], "encode", data.hex()])
            got = items_of(codec, codec.Decoder().feed(bytes.fromhex(v["hex"])))
            if not same(got, [{"frame": want}]):
                failures.append([v["name"], "decode", got])
        except Exception as e:
            failures.append([v["name"], "raised", repr(e)])
    for v in vectors["bad"]:
        checked += 1
        data = bytes.fromhex(v["hex"])
        for mode in ("whole", "bytewise"):
            try:
                dec = codec.Decoder()
                results = []
                if mode == "whole":
                    results.extend(dec.feed(data))
                else:
                    for i in range(len(data)):
                        results.extend(dec.feed(data[i : i + 1]))
                results.extend(dec.feed_eof())
                got = items_of(codec, results)
                if not same(got, v["expect"]):
                    failures.append([v["name"], mode, got])
                if not same(dec.counters, v["counters"]):
                    failures.append([v["name"], mode + " counters", dec.counters])
            except Exception as e:
                failures.append([v["name"], mode + " raised", repr(e)])
    for v in vectors["encode_errors"]:
        checked += 1
        try:
            codec.encode(v["mtype"], v["fields"], v["reader"], v["seq"], v["flags"])
        except codec.LocalProtocolError:
            continue
        except Exception as e:
            failures.append([v["name"], "raised", repr(e)])
            continue
        failures.append([v["name"], "encode accepted it"])
    return checked, failures


def check_signed(codec, signed):
    failures = []
    checked = 0
    key = bytes.fromhex(signed["key"])
    for v in signed["hmac"]:
        checked += 1
        got = codec.hmac_sha256(bytes.fromhex(v["key"]), bytes.fromhex(v["msg"]))
        if got.hex() != v["mac"]:
            failures.append([v["name"], "hmac", got.hex()])
    for v in signed["good"]:
        checked += 1
        want = v["frame"]
        try:
            data = codec.encode(
                v["mtype"], want["fields"], want["reader"], want["seq"], want["flags"],
                key, want["stamp"], v["sender"],
            )
            if data.hex() != v["hex"]:
                failures.append([v["name"], "encode", data.hex()])
            dec = codec.Decoder(key, True, v["sender"])
            got = items_of(codec, dec.feed(bytes.fromhex(v["hex"])))
            if not same(got, [{"frame": want}]):
                failures.append([v["name"], "decode", got])
            got = items_of(codec, codec.Decoder().feed(bytes.fromhex(v["hex"])))
            if len(got) != 1 or got[0].get("error") != "incompatible_flag":
                failures.append([v["name"], "keyless decode", got])
        except Exception as e:
            failures.append([v["name"], "raised", repr(e)])
    for v in signed["bad"]:
        checked += 1
        data = bytes.fromhex(v["hex"])
        for mode in ("whole", "bytewise"):
            try:
                dec = codec.Decoder(key, v["require"], v["sender"])
                results = []
                if mode == "whole":
                    results.extend(dec.feed(data))
                else:
                    for i in range(len(data)):
                        results.extend(dec.feed(data[i : i + 1]))
                results.extend(dec.feed_eof())
                got = items_of(codec, results)
                if not same(got, v["expect"]):
                    failures.append([v["name"], mode, got])
                if not same(dec.counters, v["counters"]):
                    failures.append([v["name"], mode + " counters", dec.counters])
            except Exception as e:
                failures.append([v["name"], mode + " raised", repr(e)])
    for v in signed["encode_errors"]:
        checked += 1
        try:
            codec.encode(v["mtype"], v["fields"], 1, v["seq"], 0, key, v["stamp"], v["sender"])
        except codec.LocalProtocolError:
            continue
        except Exception as e:
            failures.append([v["name"], "raised", repr(e)])
            continue
        failures.append([v["name"], "encode accepted it"])
    return checked, failures


USAGE = "usage: check_vectors.py DIR VECTORS.json (DIR holds wire/: host/tablesense/onboard)"


def fail(msg):
    sys.stderr.write("check_vectors.py: " + msg + "\n")
    return 2


def main(argv):
    if len(argv) != 3:
        return fail(USAGE)
    sys.path.insert(0, argv[1])
    try:
        from wire import codec
    except ImportError as e:
        return fail(argv[1] + ": no wire codec there (" + str(e) + "); " + USAGE)
    try:
        with open(argv[2]) as f:
            vectors = json.load(f)
    except (OSError, ValueError) as e:
        return fail(argv[2] + ": cannot read the vectors: " + str(e))
    checked, failures = check(codec, vectors)
    signed_checked = 0
    if "signed" in vectors and hasattr(codec, "SigningKey"):
        signed_checked, more = check_signed(codec, vectors["signed"])
        failures.extend(more)
    print(
        json.dumps(
            {"implementation": sys.implementation.name, "checked": checked, "failures": failures,
             "signed_checked": signed_checked}
        )
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
