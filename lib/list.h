/*
 * Circular doubly linked lists with Linux's names: a struct list_head is
 * embedded in each element, and container_of() gets the element back.
 */
#ifndef LIST_H
#define LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) {&(name), &(name)}
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

#define container_of(ptr, type, member)                                       \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member)                                  \
	list_entry((head)->next, type, member)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* After head: a stack, or the front of a queue. */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}

/* Before head: the back of a queue. */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

/* Unlink and re-initialise, so list_empty(entry) tells it is off-list. */
static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_del_init(e);
	list_add_tail(e, head);
}

#define list_for_each_entry(pos, head, member)                                \
	for (pos = list_entry((head)->next, __typeof__(*pos), member);        \
	     &pos->member != (head);                                          \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)                        \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),        \
	     n = list_entry(pos->member.next, __typeof__(*pos), member);      \
	     &pos->member != (head);                                          \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif
