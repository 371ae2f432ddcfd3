/* not written yet */
typedef int placeholder_pose;
