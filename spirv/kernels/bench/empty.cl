// Launch cost: a kernel that does nothing.
kernel void empty(void) {}
