/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libosmats: OpenSM event plugin that guards the ATS ServiceRecords. Its
 * one exported symbol (libosmats.map), which OpenSM looks up by the name
 * OSM_EVENT_PLUGIN_IMPL_NAME once it has loaded the library named by
 * event_plugin_name. */
#ifndef IBATS_OSMATS_H
#define IBATS_OSMATS_H

#include <opensm/osm_config.h> /* first: it fixes the layout of osm_sa_t */
#include <opensm/osm_event_plugin.h>

extern osm_event_plugin_t osm_event_plugin;

#endif
