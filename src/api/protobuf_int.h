/* protobuf_int.h -- the field tables that drive the protobuf decoder,
 * shared by protobuf.c and protobuf_tables.c only. */
#ifndef CUEUE_API_PROTOBUF_INT_H
#define CUEUE_API_PROTOBUF_INT_H

#include <stddef.h>
#include <stdint.h>

/* What a field's bytes hold, and how its value reads in JSON. */
enum pb_type {
    PB_STRING,       /* string */
    PB_INT32,        /* varint, JSON number */
    PB_INT64,        /* varint, JSON number */
    PB_BOOL,         /* varint, JSON true/false */
    PB_MSG,          /* a message of its own table, a JSON object */
    PB_INLINE,       /* an embedded Go struct: its fields join the parent's object */
    PB_TIME,         /* metav1.Time {seconds, nanos}: RFC 3339 in seconds */
    PB_MICROTIME,    /* metav1.MicroTime: RFC 3339 in microseconds */
    PB_QUANTITY,     /* resource.Quantity {string}: a JSON string */
    PB_INTORSTR,     /* intstr.IntOrString {type, intVal, strVal}: number or string */
    PB_RAWJSON,      /* metav1.FieldsV1 {Raw}: JSON text, inlined */
    PB_BYTES,        /* bytes ([]byte): a base64 JSON string, as Go writes it */
    PB_MAP_STRING,   /* map<string, string> */
    PB_MAP_QUANTITY, /* map<string, Quantity> (ResourceList) */
    PB_MAP_STRLIST,  /* map<string, ExtraValue>: ExtraValue {repeated string items} */
    PB_MAP_BYTES,    /* map<string, bytes>: base64 JSON strings */
};

#define PB_TYPE_MASK 0xffu
#define PB_REPEATED 0x100u /* a list: a JSON array, left out when empty */
#define PB_PTR 0x200u      /* a Go pointer: in JSON whenever it was sent */
#define PB_KEEP 0x400u     /* no omitempty: in JSON even when zero */

struct pb_msg;

/* One field: its number, type and flags, JSON name, and table (PB_MSG and
 * PB_INLINE). Without PB_PTR or PB_KEEP, a scalar is left out of the JSON
 * when zero (omitempty); a message is always written, as Go writes a
 * struct. */
struct pb_field {
    uint32_t num;
    unsigned type;
    const char *json;
    const struct pb_msg *msg;
};

/* A message: its fields in the Go struct's order (the JSON order). */
struct pb_msg {
    const char *name;
    const struct pb_field *fields;
    size_t n;
};

/* The kinds a body may carry, by API group ("" for the core group) and
 * kind; a NULL group matches every group (DeleteOptions). Ends with a
 * NULL kind. */
struct pb_top {
    const char *group;
    const char *kind;
    const struct pb_msg *msg;
};

extern const struct pb_top pb__kinds[];

#endif
