/* Written by make_v2.py: what the firmware must find in v2.zt. */
#define EXPECT_V2_OBJECTS 3
#define EXPECT_V2_PARTS 4
#define EXPECT_V2_BYTES 328235
typedef struct { const char *name, *layout; uint32_t ndim, numel, parts; } expect_v2_object;
static const expect_v2_object expect_v2_objects[EXPECT_V2_OBJECTS] = {
    {"head.scale", "dense", 1, 16, 1},
    {"embed.weight", "dense", 2, 32, 1},
    {"head.qweight", "zt.quant_group/1", 2, 128, 2},
};
typedef struct { const char *object, *part; uint32_t length, fnv1a; } expect_v2_part;
static const expect_v2_part expect_v2_parts[EXPECT_V2_PARTS] = {
    {"embed.weight", "data", 128, 0xb657875eu},
    {"head.qweight", "data", 64, 0x6951c58au},
    {"head.qweight", "scales", 16, 0x4f2df164u},
    {"head.scale", "data", 16, 0xede2bf28u},
};
