/* md5tool lod: a mesh's levels of detail as engine/build/build_lod makes them, a line (or JSON object) per
 * level, and a level written out as an .md5mesh the demo and `md5tool render` can show. */
#ifndef MARIONETTE_MD5TOOL_LOD_H
#define MARIONETTE_MD5TOOL_LOD_H

int command_lod(int argc, char **argv);

#endif
