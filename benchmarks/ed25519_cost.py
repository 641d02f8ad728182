"""What an ed25519 signature check would cost a reader: field arithmetic in MicroPython.

    micropython benchmarks/ed25519_cost.py        (or python3: the same loop in CPython)

An ed25519 verify (RFC 8032, 5.1.7) is dominated by arithmetic modulo
p = 2**255 - 19: decoding the public key A and the point R (a square root: one
exponentiation to (p - 5) / 8, about 254 squarings and 11 multiplications each),
and [S]B - [k]A with 253-bit scalars (Shamir's trick in extended coordinates:
253 doublings of 4 multiplications and 4 squarings, and about 190 additions of
9 multiplications), about 4,300 multiplications modulo p in all, plus SHA-512
over R, A and the message, which MicroPython's hashlib lacks on the RP2040 and
a pure-Python SHA-512 would do in 64-bit words, each a bigint here. This times
the multiplication modulo p and the exponentiation, and prints the estimate.
"""

import time

P = 2**255 - 19
MULS_PER_VERIFY = 2 * (254 + 11) + 253 * 8 + 190 * 9  # square roots, doublings, additions


def ticks_us():
    if hasattr(time, "ticks_us"):
        return time.ticks_us()
    return time.perf_counter_ns() // 1000


def elapsed(t0):
    if hasattr(time, "ticks_diff"):
        return time.ticks_diff(ticks_us(), t0)
    return ticks_us() - t0


def main():
    a = 0x1F2E3D4C5B6A79880123456789ABCDEFFEDCBA98765432100F1E2D3C4B5A6978 % P
    b = 0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF % P
    n = 20000
    t0 = ticks_us()
    x = a
    for _ in range(n):
        x = x * b % P
    mul_us = elapsed(t0) / n
    t0 = ticks_us()
    for _ in range(5):
        pow(a, (P - 5) // 8, P)
    pow_us = elapsed(t0) / 5
    verify_ms = MULS_PER_VERIFY * mul_us / 1000
    print(f"mulmod_us {mul_us:.2f} pow_us {pow_us:.0f} muls {MULS_PER_VERIFY} "
          f"verify_ms_estimate {verify_ms:.1f}")


main()
