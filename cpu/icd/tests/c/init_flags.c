/* zeInit and zeInitDrivers flags, each case in a forked child that starts with a fresh loader
 * and driver (Debian's loader 1.8.12 keeps the first zeInit's answer for the process); the parent
 * never initializes anything and fails when a child does.
 *
 * zeInit goes through the loader. zeInitDrivers is newer than that loader (API 1.10), so those
 * cases call the driver's own global table (ZE_ENABLE_ALT_DRIVERS names the ICD).
 *
 * With ZT_STRICT=1 (ZEKIT_VALIDATION=strict) only the unknown-bits case runs: the first zeInit
 * is refused as the spec says. */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>

#include "zt.h"

#define UNINIT ZE_RESULT_ERROR_UNINITIALIZED

/* zeInit(flags) through the loader must answer `expect`; then zeDriverGet counts `drivers`
 * (0: it answers UNINITIALIZED). */
static void init_step(ze_init_flags_t flags, ze_result_t expect, uint32_t drivers) {
    ze_result_t r = zeInit(flags);
    printf("  zeInit(0x%x) = 0x%x\n", (unsigned)flags, (unsigned)r);
    EXPECT(r == expect);
    uint32_t n = 0;
    ze_result_t g = zeDriverGet(&n, NULL);
    if (drivers == 0) {
        EXPECT(g == UNINIT);
    } else {
        EXPECT(g == ZE_RESULT_SUCCESS && n == drivers);
    }
}

typedef struct {
    ze_global_dditable_t global;
    ze_driver_dditable_t driver;
} icd_t;

static void icd(icd_t *t) {
    const char *path = getenv("ZE_ENABLE_ALT_DRIVERS");
    EXPECT(path != NULL);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    EXPECT(lib != NULL);
    ze_pfnGetGlobalProcAddrTable_t get_global =
        (ze_pfnGetGlobalProcAddrTable_t)dlsym(lib, "zeGetGlobalProcAddrTable");
    ze_pfnGetDriverProcAddrTable_t get_driver =
        (ze_pfnGetDriverProcAddrTable_t)dlsym(lib, "zeGetDriverProcAddrTable");
    EXPECT(get_global != NULL && get_driver != NULL);
    memset(t, 0, sizeof *t);
    OK(get_global(ZE_MAKE_VERSION(1, 18), &t->global));
    OK(get_driver(ZE_MAKE_VERSION(1, 18), &t->driver));
    EXPECT(t->global.pfnInitDrivers != NULL && t->driver.pfnGet != NULL);
}

/* The driver's zeInitDrivers(flags) must answer `expect` with `count` handles (count query and
 * handle fill); then its zeDriverGet counts `drivers` (0: UNINITIALIZED). */
static void init_drivers_step(icd_t *t, uint32_t flags, ze_result_t expect, uint32_t count,
                              uint32_t drivers) {
    ze_init_driver_type_desc_t desc = {ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, NULL, flags};
    uint32_t n = 7;
    ze_result_t r = t->global.pfnInitDrivers(&n, NULL, &desc);
    printf("  zeInitDrivers(0x%x) = 0x%x, count %u\n", (unsigned)flags, (unsigned)r, n);
    EXPECT(r == expect);
    if (expect == ZE_RESULT_SUCCESS || expect == UNINIT) EXPECT(n == count);
    if (count > 0) {
        ze_driver_handle_t h[2] = {NULL, NULL};
        n = 2;
        OK(t->global.pfnInitDrivers(&n, h, &desc));
        EXPECT(n == 1 && h[0] != NULL && h[1] == NULL);
    }
    n = 0;
    ze_result_t g = t->driver.pfnGet(&n, NULL);
    if (drivers == 0) {
        EXPECT(g == UNINIT);
    } else {
        EXPECT(g == ZE_RESULT_SUCCESS && n == drivers);
    }
}

typedef void (*case_fn)(void);

static int failures = 0;

/* Runs `fn` in a forked child (with ZEKIT_DEVICE_TYPE=`kind` when not NULL); counts a failure
 * unless the child exits 0. */
static void run_case(const char *name, const char *kind, case_fn fn) {
    fflush(stdout);
    pid_t pid = fork();
    EXPECT(pid >= 0);
    if (pid == 0) {
        if (kind) setenv("ZEKIT_DEVICE_TYPE", kind, 1);
        printf("case %s%s%s\n", name, kind ? " ZEKIT_DEVICE_TYPE=" : "", kind ? kind : "");
        fn();
        fflush(stdout);
        _exit(0);
    }
    int status = 0;
    EXPECT(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "case %s failed (status 0x%x)\n", name, (unsigned)status);
        failures++;
    } else {
        printf("case %s ok\n", name);
    }
}

static const ze_init_flags_t GPU = ZE_INIT_FLAG_GPU_ONLY, VPU = ZE_INIT_FLAG_VPU_ONLY;

/* Unknown bits are ignored (the known bits decide); a later valid zeInit still works. */
static void unknown_bits(void) {
    init_step(0x80000000u, ZE_RESULT_SUCCESS, 1);
    init_step(0, ZE_RESULT_SUCCESS, 1);
}
static void strict_unknown_bits(void) {
    ze_result_t r = zeInit(0x80000000u);
    printf("  zeInit(0x80000000) = 0x%x\n", (unsigned)r);
    EXPECT(r == ZE_RESULT_ERROR_INVALID_ENUMERATION);
}
static void unknown_bits_with_vpu(void) { init_step(0x80000000u | VPU, UNINIT, 0); }
static void default_flags(void) { init_step(0, ZE_RESULT_SUCCESS, 1); }
static void gpu_only(void) { init_step(GPU, UNINIT, 0); }
static void vpu_only(void) { init_step(VPU, UNINIT, 0); }
static void gpu_or_vpu(void) { init_step(GPU | VPU, UNINIT, 0); }
/* A refused zeInit after a successful one leaves the driver initialized and reported. */
static void refused_after_init(void) {
    init_step(0, ZE_RESULT_SUCCESS, 1);
    init_step(VPU, UNINIT, 1);
    init_step(GPU, UNINIT, 1);
    init_step(0, ZE_RESULT_SUCCESS, 1);
}
static void gpu_kind(void) {
    init_step(GPU, ZE_RESULT_SUCCESS, 1);
    init_step(VPU, UNINIT, 1);
    init_step(GPU | VPU, ZE_RESULT_SUCCESS, 1);
}
/* Debian's loader keeps the answer of the first zeInit of the process: after a refused first
 * call, later valid ones are refused too, by the loader, without reaching the driver (as with
 * any driver that is not of the asked type). zeInitDrivers is the API for asking again. */
static void loader_keeps_first_refusal(void) {
    init_step(VPU, UNINIT, 0);
    init_step(0, UNINIT, 0);
}
static void gpu_kind_both(void) { init_step(GPU | VPU, ZE_RESULT_SUCCESS, 1); }

static void drivers_cpu(void) {
    icd_t t;
    icd(&t);
    init_drivers_step(&t, 0, UNINIT, 0, 0);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_GPU, UNINIT, 0, 0);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_NPU, UNINIT, 0, 0);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_GPU | ZE_INIT_DRIVER_TYPE_FLAG_NPU, UNINIT, 0, 0);
    init_drivers_step(&t, 0x10, ZE_RESULT_ERROR_INVALID_ENUMERATION, 0, 0);
    init_drivers_step(&t, UINT32_MAX, ZE_RESULT_SUCCESS, 1, 1);
    /* Initialized now: a call for other types returns no handle and uninitializes nothing. */
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_NPU, UNINIT, 0, 1);
    init_drivers_step(&t, 0, UNINIT, 0, 1);
    init_drivers_step(&t, UINT32_MAX, ZE_RESULT_SUCCESS, 1, 1);
}
static void drivers_gpu(void) {
    icd_t t;
    icd(&t);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_NPU, UNINIT, 0, 0);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_GPU, ZE_RESULT_SUCCESS, 1, 1);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_GPU | ZE_INIT_DRIVER_TYPE_FLAG_NPU,
                      ZE_RESULT_SUCCESS, 1, 1);
}
static void drivers_gpu_npu_first(void) {
    icd_t t;
    icd(&t);
    init_drivers_step(&t, ZE_INIT_DRIVER_TYPE_FLAG_GPU | ZE_INIT_DRIVER_TYPE_FLAG_NPU,
                      ZE_RESULT_SUCCESS, 1, 1);
}

int main(void) {
    if (getenv("ZT_STRICT") != NULL) {
        run_case("strict unknown bits", NULL, strict_unknown_bits);
    } else {
        run_case("unknown bits", NULL, unknown_bits);
        run_case("unknown bits with VPU_ONLY", NULL, unknown_bits_with_vpu);
        run_case("0", NULL, default_flags);
        run_case("GPU_ONLY", NULL, gpu_only);
        run_case("VPU_ONLY", NULL, vpu_only);
        run_case("GPU_ONLY|VPU_ONLY", NULL, gpu_or_vpu);
        run_case("refused after init", NULL, refused_after_init);
        run_case("loader keeps the first refusal", NULL, loader_keeps_first_refusal);
        run_case("gpu kind", "gpu", gpu_kind);
        run_case("gpu kind GPU_ONLY|VPU_ONLY", "gpu", gpu_kind_both);
        run_case("zeInitDrivers", NULL, drivers_cpu);
        run_case("zeInitDrivers gpu kind", "gpu", drivers_gpu);
        run_case("zeInitDrivers gpu kind GPU|NPU", "gpu", drivers_gpu_npu_first);
    }
    EXPECT(failures == 0);
    printf("init_flags ok\n");
    return 0;
}
