/* zeInit with flags this API does not define, then a valid zeInit, through the loader (which
 * keeps the first answer for the process): at the compatible level both succeed and the driver
 * is there; with ZT_STRICT=1 (ZEKIT_VALIDATION=strict) the first is refused as the spec says. */
#include "zt.h"

int main(void) {
    int strict = getenv("ZT_STRICT") != NULL;
    ze_result_t bad = zeInit(0x80000000u);
    printf("zeInit(0x80000000) = 0x%x\n", (unsigned)bad);
    if (strict) {
        EXPECT(bad == ZE_RESULT_ERROR_INVALID_ENUMERATION);
        printf("init_flags ok\n");
        return 0;
    }
    EXPECT(bad == ZE_RESULT_SUCCESS);
    OK(zeInit(0));
    uint32_t n = 0;
    OK(zeDriverGet(&n, NULL));
    EXPECT(n == 1);
    printf("init_flags ok\n");
    return 0;
}
