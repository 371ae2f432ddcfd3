/* not written yet */
typedef int placeholder_clip;
