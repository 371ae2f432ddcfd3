/* bench_budget: see bench_budget.h. */
#include "bench_budget.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "hud.h"

bool bench_budget_create(bench_budget *budget, int frames)
{
    *budget = (bench_budget){.capacity = frames};
    for (int k = 0; k < BENCH_BUDGET_FIGURES; ++k)
        if (!(budget->gpu[k] = malloc((size_t)(frames > 0 ? frames : 1) * sizeof(double)))) {
            bench_budget_free(budget);
            return false;
        }
    return true;
}

void bench_budget_free(bench_budget *budget)
{
    for (int k = 0; k < BENCH_BUDGET_FIGURES; ++k)
        free(budget->gpu[k]);
    *budget = (bench_budget){0};
}

void bench_budget_start(bench_budget *budget)
{
    budget->timed = 0;
    budget->any = false;
    budget->last = (gfx_stats){0};
}

void bench_budget_add(bench_budget *budget, const gfx_stats *stats)
{
    budget->last = *stats;
    budget->any = true;
    if (!stats->gpu_timed || budget->timed >= budget->capacity)
        return;
    const float figures[BENCH_BUDGET_FIGURES] = {stats->gpu_shadow_ms, stats->gpu_ground_ms,
                                                 stats->gpu_characters_ms, stats->gpu_overlay_ms,
                                                 stats->gpu_frame_ms};
    for (int k = 0; k < BENCH_BUDGET_FIGURES; ++k)
        budget->gpu[k][budget->timed] = figures[k];
    ++budget->timed;
}

void bench_budget_line(bench_budget *budget, const char *label, char *buffer, size_t size)
{
    hud_budget shown = hud_budget_from_stats(&budget->last);
    shown.gpu_timed = budget->timed > 0;
    if (shown.gpu_timed) {
        float *medians[BENCH_BUDGET_FIGURES] = {&shown.gpu_shadow_ms, &shown.gpu_ground_ms,
                                                &shown.gpu_characters_ms, &shown.gpu_overlay_ms,
                                                &shown.gpu_frame_ms};
        for (int k = 0; k < BENCH_BUDGET_FIGURES; ++k)
            *medians[k] = (float)bench_median(budget->gpu[k], budget->timed);
    }
    char text[512];
    hud_budget_text(&shown, "; ", text, sizeof text);
    snprintf(buffer, size, "budget: %s, %d draw calls; %s", label, budget->last.draw_calls, text);
}
