/* queue.c - a bounded blocking queue of chunk pointers between the engine's threads (engine.h). */
#include "engine.h"

#include <stdlib.h>

int gs_queue_init(gs_queue *q, size_t cap)
{
    q->items = calloc(cap, sizeof *q->items);
    q->cap = cap;
    q->head = q->count = 0;
    q->closed = 0;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    return q->items ? 0 : -1;
}

void gs_queue_free(gs_queue *q)
{
    free(q->items);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

void gs_queue_push(gs_queue *q, gs_chunk *c)
{
    pthread_mutex_lock(&q->mu);
    q->items[(q->head + q->count) % q->cap] = c;
    q->count++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

gs_chunk *gs_queue_pop(gs_queue *q)
{
    gs_chunk *c = NULL;
    pthread_mutex_lock(&q->mu);
    while (!q->count && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    if (q->count) {
        c = q->items[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
    }
    pthread_mutex_unlock(&q->mu);
    return c;
}

void gs_queue_close(gs_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}
