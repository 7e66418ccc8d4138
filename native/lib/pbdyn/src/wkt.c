/* The well-known types of google/protobuf/ that print in a form of their own
 * (json_wkt.c, text_parse.c's Any), recognised by full name once, when a
 * schema is built (internal/def.h: pbdyn_msgdef.wkt). */
#include <string.h>

#include "internal/def.h"

static const char PREFIX[] = "google.protobuf.";

static const struct {
  const char *name;
  pbdyn__wkt kind;
} WKTS[] = {
    {"Any", PBDYN_WKT_ANY},
    {"Timestamp", PBDYN_WKT_TIMESTAMP},
    {"Duration", PBDYN_WKT_DURATION},
    {"FieldMask", PBDYN_WKT_FIELDMASK},
    {"Struct", PBDYN_WKT_STRUCT},
    {"Value", PBDYN_WKT_VALUE},
    {"ListValue", PBDYN_WKT_LISTVALUE},
    {"DoubleValue", PBDYN_WKT_WRAPPER},
    {"FloatValue", PBDYN_WKT_WRAPPER},
    {"Int64Value", PBDYN_WKT_WRAPPER},
    {"UInt64Value", PBDYN_WKT_WRAPPER},
    {"Int32Value", PBDYN_WKT_WRAPPER},
    {"UInt32Value", PBDYN_WKT_WRAPPER},
    {"BoolValue", PBDYN_WKT_WRAPPER},
    {"StringValue", PBDYN_WKT_WRAPPER},
    {"BytesValue", PBDYN_WKT_WRAPPER},
};

pbdyn__wkt pbdyn__wkt_of(const char *full_name) {
  if (strncmp(full_name, PREFIX, sizeof PREFIX - 1)) return PBDYN_WKT_NONE;
  const char *name = full_name + sizeof PREFIX - 1;
  for (size_t i = 0; i < sizeof WKTS / sizeof *WKTS; i++)
    if (!strcmp(name, WKTS[i].name)) return WKTS[i].kind;
  return PBDYN_WKT_NONE;
}

bool pbdyn__wkt_is_null_value(const char *full_name) {
  return !strcmp(full_name, "google.protobuf.NullValue");
}
