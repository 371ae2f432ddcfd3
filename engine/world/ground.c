#include "ground.h"

#include <stddef.h>

ground_sample ground_at(const ground *ground, float x, float z)
{
    (void)x;
    (void)z;
    ground_sample flat = {.height = 0.0f, .normal = {0.0f, 1.0f, 0.0f}};
    if (!ground)
        return flat;
    switch (ground->kind) {
    case GROUND_FLAT:
    case GROUND_KIND_COUNT:
        break;
    }
    return flat;
}
