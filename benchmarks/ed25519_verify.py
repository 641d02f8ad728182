"""A pure-Python ed25519 signature check, timed in the MicroPython VM: could a reader afford it?

    .venv/bin/python benchmarks/ed25519_verify.py --make VECTOR.json   (CPython: signs with
                                                                          the cryptography package)
    micropython benchmarks/ed25519_verify.py VECTOR.json [RUNS]          (times the check)

Written from RFC 8032 (5.1.7) and FIPS 180-4 (SHA-512, whose round constants are
computed here from the primes' cube and square roots): MicroPython's hashlib has
no SHA-512 on the RP2040, so the check needs both. Integers are Python's own
(MicroPython's are arbitrary precision, on the RP2040 too). Not firmware: a
measurement for BENCHMARKS.md, "Firmware updates". The vector file holds a public
key, a message (a manifest's SHA-256) and its signature made by another
implementation; the check must accept it and refuse it with one bit changed.
"""

import json
import sys
import time

M64 = (1 << 64) - 1
P = 2**255 - 19
Q = 2**252 + 27742317777372353535851937790883648493


def bit_length(n):
    """``int.bit_length``, which MicroPython's int lacks."""
    return len(bin(n)) - 2 if n else 0


def iroot(n, k):
    """floor(n ** (1/k)) for a non-negative integer n (Newton's method)."""
    if n < 2:
        return n
    x = 1 << ((bit_length(n) + k - 1) // k)
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


def primes(n):
    out = []
    c = 2
    while len(out) < n:
        if all(c % q for q in out):
            out.append(c)
        c += 1
    return out


_PR = primes(80)
K512 = [iroot(q << 192, 3) & M64 for q in _PR]  # fractional parts of the cube roots
H512 = [iroot(q << 128, 2) & M64 for q in _PR[:8]]  # of the square roots


def _rotr(x, n):
    return ((x >> n) | (x << (64 - n))) & M64


def sha512(msg):
    ml = len(msg)
    msg = bytes(msg) + b"\x80" + bytes((111 - ml) % 128) + (ml * 8).to_bytes(16, "big")
    h = list(H512)
    for off in range(0, len(msg), 128):
        w = [int.from_bytes(msg[off + 8 * i: off + 8 * i + 8], "big") for i in range(16)]
        for t in range(16, 80):
            s0 = _rotr(w[t - 15], 1) ^ _rotr(w[t - 15], 8) ^ (w[t - 15] >> 7)
            s1 = _rotr(w[t - 2], 19) ^ _rotr(w[t - 2], 61) ^ (w[t - 2] >> 6)
            w.append((w[t - 16] + s0 + w[t - 7] + s1) & M64)
        a, b, c, d, e, f, g, hh = h
        for t in range(80):
            t1 = (hh + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41))
                  + ((e & f) ^ ((e ^ M64) & g)) + K512[t] + w[t]) & M64
            t2 = ((_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39))
                  + ((a & b) ^ (a & c) ^ (b & c))) & M64
            hh, g, f, e, d, c, b, a = g, f, e, (d + t1) & M64, c, b, a, (t1 + t2) & M64
        v = (a, b, c, d, e, f, g, hh)
        h = [(h[i] + v[i]) & M64 for i in range(8)]
    return b"".join(x.to_bytes(8, "big") for x in h)


def inv(x):
    return pow(x, P - 2, P)


D = -121665 * inv(121666) % P
D2 = 2 * D % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def recover_x(y, sign):
    if y >= P:
        return None
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    vx2 = v * x * x % P
    if vx2 == (P - u) % P:
        x = x * SQRT_M1 % P
    elif vx2 != u:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return x


def decode(s):
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


def encode(pt):
    zi = inv(pt[2])
    x, y = pt[0] * zi % P, pt[1] * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def add(p1, p2):
    a = (p1[1] - p1[0]) * (p2[1] - p2[0]) % P
    b = (p1[1] + p1[0]) * (p2[1] + p2[0]) % P
    c = p1[3] * D2 * p2[3] % P
    d = 2 * p1[2] * p2[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def double(p1):
    a = p1[0] * p1[0] % P
    b = p1[1] * p1[1] % P
    c = 2 * p1[2] * p1[2] % P
    h = a + b
    e = h - (p1[0] + p1[1]) * (p1[0] + p1[1]) % P
    g = a - b
    f = c + g
    return (e * f % P, g * h % P, f * g % P, e * h % P)


_BY = 4 * inv(5) % P
BASE = (recover_x(_BY, 0), _BY, 1, recover_x(_BY, 0) * _BY % P)


def verify(public, msg, sig):
    """RFC 8032 5.1.7: [S]B == R + [k]A, checked as [S]B + [k](-A) encoding to R."""
    if len(public) != 32 or len(sig) != 64:
        return False
    a = decode(public)
    s = int.from_bytes(sig[32:], "little")
    if a is None or s >= Q or decode(sig[:32]) is None:
        return False
    k = int.from_bytes(sha512(sig[:32] + public + msg), "little") % Q
    neg_a = (P - a[0], a[1], a[2], P - a[3])
    both = add(BASE, neg_a)
    acc = (0, 1, 1, 0)
    for i in range(max(bit_length(s), bit_length(k)) - 1, -1, -1):
        acc = double(acc)
        bs, bk = (s >> i) & 1, (k >> i) & 1
        if bs and bk:
            acc = add(acc, both)
        elif bs:
            acc = add(acc, BASE)
        elif bk:
            acc = add(acc, neg_a)
    return encode(acc) == sig[:32]


def ticks_ms():
    return time.ticks_ms() if hasattr(time, "ticks_ms") else int(time.time() * 1000)


def elapsed(t0):
    return time.ticks_diff(ticks_ms(), t0) if hasattr(time, "ticks_diff") else ticks_ms() - t0


def make(path):
    import hashlib

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    msg = hashlib.sha256(b"tablesense-firmware 0.7.1\n").digest()
    key = Ed25519PrivateKey.generate()
    pub = key.public_key().public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw)
    assert sha512(b"abc") == hashlib.sha512(b"abc").digest()
    assert sha512(bytes(300)) == hashlib.sha512(bytes(300)).digest()
    with open(path, "w") as f:
        json.dump({"public": pub.hex(), "msg": msg.hex(), "sig": key.sign(msg).hex()}, f)


def main(argv):
    if len(argv) >= 3 and argv[1] == "--make":
        make(argv[2])
        return 0
    if len(argv) < 2:
        sys.stderr.write("usage: ed25519_verify.py VECTOR.json [RUNS] | --make VECTOR.json\n")
        return 2
    with open(argv[1]) as f:
        v = json.load(f)
    runs = int(argv[2]) if len(argv) > 2 else 3
    pub, msg, sig = (bytes.fromhex(v[k]) for k in ("public", "msg", "sig"))
    bad = bytearray(sig)
    bad[40] ^= 1
    assert not verify(pub, msg, bytes(bad)), "a changed signature passed"
    times = []
    for _ in range(runs):
        t0 = ticks_ms()
        ok = verify(pub, msg, sig)
        times.append(elapsed(t0))
        assert ok, "the signature did not verify"
    t0 = ticks_ms()
    sha512(msg + bytes(64))
    print(json.dumps({"implementation": sys.implementation.name, "verify_ms": times,
                      "sha512_ms": elapsed(t0)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
