/* `cargo xtask sycl --sweep`: builds SPIR-V modules through the Level Zero loader, each with
 * zeModuleCreate and then zeKernelCreate for every kernel it names.
 *
 * Usage: sweep LIST [FIRST]: LIST has one module path a line; FIRST skips the lines before it
 * (the caller restarts after a module that killed the process). For each module it prints
 *   BEGIN <index>
 *   MODULE <index>\t<ok|refused|error>\t<kernels>\t<kernels created>\t<reason>
 * to stdout, flushed, where <reason> is the first line of the build log (or the failing call),
 * tabs and newlines made spaces. The device is the first of the first driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <level_zero/ze_api.h>

static void flat(char *s) {
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

static char *first_line(const char *log) {
    static char buf[512];
    size_t n = 0;
    while (log[n] && log[n] != '\n' && n < sizeof buf - 1) n++;
    memcpy(buf, log, n);
    buf[n] = 0;
    flat(buf);
    return buf;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: sweep LIST [FIRST]\n");
        return 2;
    }
    long first = argc > 2 ? atol(argv[2]) : 0;
    unsigned timeout = getenv("ZEKIT_SWEEP_TIMEOUT") ? (unsigned)atoi(getenv("ZEKIT_SWEEP_TIMEOUT")) : 120;
    /* zeInit(0), as the v1 adapter does. */
    ze_result_t r = zeInit(0);
    uint32_t ndrivers = 1;
    ze_driver_handle_t driver;
    if (r == ZE_RESULT_SUCCESS) r = zeDriverGet(&ndrivers, &driver);
    if (r != ZE_RESULT_SUCCESS || ndrivers == 0) {
        fprintf(stderr, "sweep: zeInit/zeDriverGet: 0x%x, %u drivers\n", (unsigned)r, ndrivers);
        return 2;
    }
    uint32_t ndevices = 1;
    ze_device_handle_t device;
    if (zeDeviceGet(driver, &ndevices, &device) != ZE_RESULT_SUCCESS || ndevices == 0) {
        fprintf(stderr, "sweep: no device\n");
        return 2;
    }
    ze_device_properties_t props = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    zeDeviceGetProperties(device, &props);
    fprintf(stderr, "sweep: device %s\n", props.name);
    ze_context_desc_t cdesc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_context_handle_t ctx;
    if (zeContextCreate(driver, &cdesc, &ctx) != ZE_RESULT_SUCCESS) {
        fprintf(stderr, "sweep: zeContextCreate failed\n");
        return 2;
    }
    FILE *list = fopen(argv[1], "r");
    if (!list) {
        perror(argv[1]);
        return 2;
    }
    char path[4096];
    for (long index = 0; fgets(path, sizeof path, list); index++) {
        path[strcspn(path, "\n")] = 0;
        if (index < first || !path[0]) continue;
        printf("BEGIN %ld\n", index);
        fflush(stdout);
        alarm(timeout); /* a module that hangs is killed by SIGALRM; the caller records it */
        size_t len = 0;
        unsigned char *il = slurp(path, &len);
        if (!il) {
            printf("MODULE %ld\terror\t0\t0\tcannot read %s\n", index, path);
            continue;
        }
        ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC, NULL, ZE_MODULE_FORMAT_IL_SPIRV, len, il, "", NULL};
        ze_module_handle_t module = NULL;
        ze_module_build_log_handle_t log = NULL;
        r = zeModuleCreate(ctx, device, &desc, &module, &log);
        char *reason = "";
        char *logtext = NULL;
        if (log) {
            size_t n = 0;
            if (zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0) {
                logtext = calloc(n + 1, 1);
                if (zeModuleBuildLogGetString(log, &n, logtext) != ZE_RESULT_SUCCESS) logtext[0] = 0;
            }
            zeModuleBuildLogDestroy(log);
        }
        if (r != ZE_RESULT_SUCCESS) {
            static char buf[600];
            snprintf(buf, sizeof buf, "%s", logtext && logtext[0] ? first_line(logtext) : "");
            if (!buf[0]) snprintf(buf, sizeof buf, "zeModuleCreate returned 0x%x with an empty build log", (unsigned)r);
            printf("MODULE %ld\trefused\t0\t0\t%s\n", index, buf);
        } else {
            uint32_t count = 0;
            zeModuleGetKernelNames(module, &count, NULL);
            const char **names = calloc(count ? count : 1, sizeof *names);
            zeModuleGetKernelNames(module, &count, names);
            uint32_t created = 0;
            static char first_fail[600];
            first_fail[0] = 0;
            for (uint32_t k = 0; k < count; k++) {
                ze_kernel_desc_t kdesc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, names[k]};
                ze_kernel_handle_t kernel;
                ze_result_t kr = zeKernelCreate(module, &kdesc, &kernel);
                if (kr == ZE_RESULT_SUCCESS) {
                    created++;
                    zeKernelDestroy(kernel);
                } else if (!first_fail[0]) {
                    snprintf(first_fail, sizeof first_fail, "zeKernelCreate returned 0x%x", (unsigned)kr);
                }
            }
            reason = first_fail;
            printf("MODULE %ld\t%s\t%u\t%u\t%s\n", index, created == count ? "ok" : "kernel-refused", count, created, reason);
            free(names);
            zeModuleDestroy(module);
        }
        alarm(0);
        fflush(stdout);
        free(logtext);
        free(il);
    }
    fclose(list);
    zeContextDestroy(ctx);
    return 0;
}
