// The rest of OpenCL.std's math: inverse hyperbolics, *pi forms, erf, erfc, tgamma, lgamma,
// logb, ilogb, ldexp, pown, rootn, nextafter, remainder, and the functions with a pointer
// result (fract, frexp, lgamma_r, modf, remquo, sincos), scalar and vector, float and double.
kernel void math3(global const float *X, global const float *Y, global const int *K,
                  global float *o, global int *io, global const double *DX, global double *dout) {
    size_t i = get_global_id(0);
    float x = X[i], y = Y[i];
    int k = K[i];
    global float *r = o + 40 * i;
    global int *q = io + 8 * i;
    r[0] = acosh(fabs(x) + 1.0f);
    r[1] = asinh(x);
    r[2] = atanh(x / 16.0f);
    r[3] = acospi(x / 16.0f);
    r[4] = asinpi(x / 16.0f);
    r[5] = atanpi(x);
    r[6] = atan2pi(x, y);
    r[7] = cospi(x);
    r[8] = sinpi(x);
    r[9] = tanpi(x);
    r[10] = erf(x);
    r[11] = erfc(x);
    r[12] = tgamma(x);
    r[13] = lgamma(x);
    r[14] = logb(x);
    q[0] = ilogb(x);
    r[15] = ldexp(x, k);
    r[16] = pown(x, k % 9);
    r[17] = rootn(y, k % 5);
    r[18] = nextafter(x, y);
    r[19] = remainder(x, y);
    float ip;
    r[20] = fract(x, &ip);
    r[21] = ip;
    int e;
    r[22] = frexp(x, &e);
    q[1] = e;
    int s;
    r[23] = lgamma_r(x, &s);
    q[2] = s;
    r[24] = modf(x, &ip);
    r[25] = ip;
    int qu;
    r[26] = remquo(x, y, &qu);
    q[3] = qu;
    float c;
    r[27] = sincos(x, &c);
    r[28] = c;
    float4 c4;
    float4 s4 = sincos((float4)(x, y, x + y, x * y), &c4);
    vstore4(s4, 0, r + 29);
    vstore4(c4, 0, r + 33);
    int2 e2;
    float2 m2 = frexp((float2)(x, y), &e2);
    vstore2(m2, 0, r + 37);
    vstore2(e2, 0, q + 4);
    float2 i2;
    r[39] = dot(modf((float2)(x, y), &i2), (float2)(1.0f, 0.0f));
    vstore2(convert_int2(i2), 0, q + 6);
    double dx = DX[i];
    global double *d = dout + 6 * i;
    d[0] = asinh(dx);
    d[1] = sinpi(dx);
    double di;
    d[2] = fract(dx, &di);
    d[3] = di;
    d[4] = erfc(dx);
    d[5] = remainder(dx, 0.75);
}
