// OpenCL.std integer functions on char, short, int and long, signed and unsigned: abs_diff,
// add_sat, sub_sat, hadd, rhadd, ctz, popcount, mad_hi, mad_sat, upsample, bitselect (floats
// too), and a vector form.
kernel void int_fns(global const int *A, global int *o, global const long *L, global long *lo,
                    global char *co, global short *so) {
    size_t i = get_global_id(0);
    int a = A[3 * i], b = A[3 * i + 1], c = A[3 * i + 2];
    uint ua = as_uint(a), ub = as_uint(b), uc = as_uint(c);
    global int *r = o + 24 * i;
    r[0] = abs_diff(a, b);
    r[1] = abs_diff(ua, ub);
    r[2] = add_sat(a, b);
    r[3] = add_sat(ua, ub);
    r[4] = sub_sat(a, b);
    r[5] = sub_sat(ua, ub);
    r[6] = hadd(a, b);
    r[7] = hadd(ua, ub);
    r[8] = rhadd(a, b);
    r[9] = rhadd(ua, ub);
    r[10] = ctz(a);
    r[11] = popcount(a);
    r[12] = mad_hi(a, b, c);
    r[13] = mad_hi(ua, ub, uc);
    r[14] = mad_sat(a, b, c);
    r[15] = mad_sat(ua, ub, uc);
    r[16] = bitselect(a, b, c);
    r[17] = as_int(bitselect(as_float(a), as_float(b), as_float(c)));
    int4 v = add_sat(vload4(0, A + 3 * i), (int4)(b)) + ctz(vload4(0, A + 3 * i));
    vstore4(v, 0, r + 18);
    r[22] = ctz(0);
    r[23] = popcount(ua);
    long la = L[3 * i], lb = L[3 * i + 1], lc = L[3 * i + 2];
    ulong ula = as_ulong(la), ulb = as_ulong(lb), ulc = as_ulong(lc);
    global long *q = lo + 14 * i;
    q[0] = add_sat(la, lb);
    q[1] = add_sat(ula, ulb);
    q[2] = sub_sat(la, lb);
    q[3] = sub_sat(ula, ulb);
    q[4] = mad_sat(la, lb, lc);
    q[5] = mad_sat(ula, ulb, ulc);
    q[6] = ctz(la);
    q[7] = upsample(a, ub);
    q[8] = upsample(ua, ub);
    q[9] = mad_hi(la, lb, lc);
    q[10] = abs_diff(la, lb);
    q[11] = popcount(la);
    q[12] = rhadd(ula, ulb);
    q[13] = hadd(la, lb);
    char ca = (char)a, cb = (char)b, cc = (char)c;
    uchar uca = (uchar)a, ucb = (uchar)b, ucc = (uchar)c;
    global char *k = co + 6 * i;
    k[0] = add_sat(ca, cb);
    k[1] = sub_sat(ca, cb);
    k[2] = mad_sat(ca, cb, cc);
    k[3] = as_char(mad_sat(uca, ucb, ucc));
    k[4] = as_char(add_sat(uca, ucb));
    k[5] = as_char(sub_sat(uca, ucb));
    so[2 * i] = upsample(ca, ucb);
    so[2 * i + 1] = hadd((short)a, (short)b);
}
