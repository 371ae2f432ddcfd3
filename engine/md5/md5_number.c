/* not written yet */
typedef int placeholder_md5_number;
