/* Shared helpers of the mock's C tests. */
#ifndef ZEKIT_MOCK_TEST_COMMON_H
#define ZEKIT_MOCK_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <level_zero/ze_api.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        ze_result_t r_ = (call);                                                       \
        if (r_ != ZE_RESULT_SUCCESS) {                                                 \
            fprintf(stderr, "%s:%d: %s returned 0x%x\n", __FILE__, __LINE__, #call,    \
                    (unsigned)r_);                                                     \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define EXPECT(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);        \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* zeInit, the first driver and its first device. */
static inline void first_device(ze_driver_handle_t *driver, ze_device_handle_t *device) {
    CHECK(zeInit(0));
    uint32_t n = 0;
    CHECK(zeDriverGet(&n, NULL));
    EXPECT(n == 1);
    CHECK(zeDriverGet(&n, driver));
    n = 0;
    CHECK(zeDeviceGet(*driver, &n, NULL));
    EXPECT(n == 1);
    CHECK(zeDeviceGet(*driver, &n, device));
}

/* The bytes of the file at `path` (malloc'd), their count in *size. */
static inline unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    EXPECT(f != NULL);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*size);
    EXPECT(fread(b, 1, *size, f) == *size);
    fclose(f);
    return b;
}

#endif
