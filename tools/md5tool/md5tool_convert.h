/* md5tool convert: rewrites an .md5mesh or .md5anim from our convention (Z up, facing +X, metres) into
 * other units and axes (md5tool_convert.c says how). Private to md5tool. */
#ifndef MARIONETTE_MD5TOOL_CONVERT_H
#define MARIONETTE_MD5TOOL_CONVERT_H

/* `md5tool convert IN OUT [--scale S] [--up AXIS] [--forward AXIS]`; returns the exit status. */
int command_convert(int argc, char **argv);

#endif
