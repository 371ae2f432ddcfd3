/* pose_checks: what the pose-stage tests ask of every pose a stage writes. */
#ifndef MARIONETTE_POSE_CHECKS_H
#define MARIONETTE_POSE_CHECKS_H

#include <math.h>
#include <stdbool.h>

#include "model/joint_pose.h"

/* Every rotation and position component finite: no stage may leave a NaN or an infinity. */
static inline bool pose_finite(const joint_pose *pose, int count)
{
    for (int j = 0; j < count; ++j)
        for (int k = 0; k < 4; ++k)
            if (!isfinite(pose[j].rotation[k]) || (k < 3 && !isfinite(pose[j].position[k])))
                return false;
    return true;
}

#endif
