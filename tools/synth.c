/* not written yet */
typedef int placeholder_synth;
