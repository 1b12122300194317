// A library module with no kernel: two exported functions for link_user.cl, one calling
// the other.
int twice(int x) { return 2 * x; }

float scale_add(float x, int k) { return x * (float)k + (float)twice(k); }
