/* What the mock answers with no scenario, through the loader, where a caller of a real driver
 * would crash on a wrong answer: the virtual memory page size (callers divide by it), and the
 * image fixture of a conformance suite (skip without image support, else create the module in
 * set-up; destroy it in tear-down) run a few times, with an image copied through.
 * argv[1]: images.spv. */
#include "common.h"

int main(int argc, char **argv) {
    EXPECT(argc == 2);
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    first_device(&driver, &device);
    ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
    ze_context_handle_t ctx;
    CHECK(zeContextCreate(driver, &cd, &ctx));

    size_t sizes[] = {1, 4096, 65536, 1u << 20, 2u << 20, 1u << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t page = 0;
        CHECK(zeVirtualMemQueryPageSize(ctx, device, sizes[i], &page));
        EXPECT(page != 0 && (page & (page - 1)) == 0);
        size_t pages = (sizes[i] + page - 1) / page;
        EXPECT(pages >= 1);
        printf("pagesize(%zu)=%zu\n", sizes[i], page);
    }

    size_t size;
    unsigned char *il = read_file(argv[1], &size);
    for (int round = 0; round < 3; round++) {
        ze_device_image_properties_t ip = {ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES};
        CHECK(zeDeviceGetImageProperties(device, &ip));
        EXPECT(ip.maxImageDims2D > 0 && ip.maxSamplers > 0 && ip.maxReadImageArgs > 0);

        ze_module_desc_t md = {ZE_STRUCTURE_TYPE_MODULE_DESC};
        md.format = ZE_MODULE_FORMAT_IL_SPIRV;
        md.inputSize = size;
        md.pInputModule = il;
        ze_module_handle_t module = NULL;
        CHECK(zeModuleCreate(ctx, device, &md, &module, NULL));

        ze_image_desc_t id = {ZE_STRUCTURE_TYPE_IMAGE_DESC};
        id.type = ZE_IMAGE_TYPE_2D;
        id.format.layout = ZE_IMAGE_FORMAT_LAYOUT_8_8_8_8;
        id.format.type = ZE_IMAGE_FORMAT_TYPE_UINT;
        id.width = 4;
        id.height = 4;
        id.depth = 1;
        ze_image_handle_t image = NULL;
        CHECK(zeImageCreate(ctx, device, &id, &image));
        EXPECT(image != NULL);

        ze_kernel_desc_t kd = {ZE_STRUCTURE_TYPE_KERNEL_DESC, NULL, 0, "read_ui"};
        ze_kernel_handle_t kernel;
        CHECK(zeKernelCreate(module, &kd, &kernel));
        CHECK(zeKernelSetArgumentValue(kernel, 0, sizeof image, &image));

        ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC};
        qd.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
        ze_command_list_handle_t list;
        CHECK(zeCommandListCreateImmediate(ctx, device, &qd, &list));
        unsigned char in[64], out[64];
        for (int i = 0; i < 64; i++) {
            in[i] = (unsigned char)(i * 3 + round);
            out[i] = 0;
        }
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
        void *src, *dst;
        CHECK(zeMemAllocHost(ctx, &hd, 64, 0, &src));
        CHECK(zeMemAllocHost(ctx, &hd, 64, 0, &dst));
        memcpy(src, in, 64);
        CHECK(zeCommandListAppendImageCopyFromMemory(list, image, src, NULL, NULL, 0, NULL));
        CHECK(zeCommandListAppendImageCopyToMemory(list, dst, image, NULL, NULL, 0, NULL));
        memcpy(out, dst, 64);
        EXPECT(memcmp(in, out, 64) == 0);

        CHECK(zeMemFree(ctx, src));
        CHECK(zeMemFree(ctx, dst));
        CHECK(zeCommandListDestroy(list));
        CHECK(zeKernelDestroy(kernel));
        CHECK(zeImageDestroy(image));
        /* Tear-down: the module of set-up, live until now. */
        CHECK(zeModuleDestroy(module));
    }
    free(il);
    CHECK(zeContextDestroy(ctx));
    printf("defaults ok\n");
    return 0;
}
