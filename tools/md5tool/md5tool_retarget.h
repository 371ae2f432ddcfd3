/* md5tool retarget: a clip made for one skeleton written out for another (engine/build/retarget.h), with the
 * joint maps printed. */
#ifndef MARIONETTE_MD5TOOL_RETARGET_H
#define MARIONETTE_MD5TOOL_RETARGET_H

int command_retarget(int argc, char **argv);

#endif
