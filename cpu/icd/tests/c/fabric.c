/* The fabric of one CPU through the loader: one vertex, the device's, with its UUID; no
 * sub-vertices; no edges from the vertex to itself. */
#include "zt.h"

int main(void) {
    ze_driver_handle_t drv;
    ze_device_handle_t dev;
    zt_discover(&drv, &dev);
    uint32_t n = 0;
    OK(zeFabricVertexGetExp(drv, &n, NULL));
    EXPECT(n == 1);
    ze_fabric_vertex_handle_t v = NULL;
    OK(zeFabricVertexGetExp(drv, &n, &v));
    EXPECT(v != NULL);
    ze_fabric_vertex_handle_t dv = NULL;
    OK(zeDeviceGetFabricVertexExp(dev, &dv));
    EXPECT(dv == v);
    ze_device_handle_t back = NULL;
    OK(zeFabricVertexGetDeviceExp(v, &back));
    EXPECT(back == dev);
    ze_fabric_vertex_exp_properties_t vp = {ZE_STRUCTURE_TYPE_FABRIC_VERTEX_EXP_PROPERTIES, NULL};
    OK(zeFabricVertexGetPropertiesExp(v, &vp));
    ze_device_properties_t dp = {ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, NULL};
    OK(zeDeviceGetProperties(dev, &dp));
    EXPECT(memcmp(vp.uuid.id, dp.uuid.id, ZE_MAX_UUID_SIZE) == 0);
    EXPECT(vp.type == ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE && !vp.remote);
    n = 7;
    OK(zeFabricVertexGetSubVerticesExp(v, &n, NULL));
    EXPECT(n == 0);
    n = 7;
    OK(zeFabricEdgeGetExp(v, v, &n, NULL));
    EXPECT(n == 0);
    printf("fabric ok\n");
    return 0;
}
