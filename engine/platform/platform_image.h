/* platform_image: decodes image files through SDL_image for the image cache (engine/image), the one place
 * SDL_image decodes anything. Knows nothing of files (it is given their bytes), GL or meshes. */
#ifndef MARIONETTE_PLATFORM_IMAGE_H
#define MARIONETTE_PLATFORM_IMAGE_H

#include "../image/image.h"

/* An image_decoder: job->data decoded by the decoder of job->format (never a guess of SDL_image's) and
 * converted to RGBA into job->rgba, which must come out job->width x job->height. */
image_decode_status platform_image_decode(image_decode_job *job);

#endif
