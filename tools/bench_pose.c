/* not written yet */
typedef int placeholder_bench_pose;
