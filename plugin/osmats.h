/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libosmats: OpenSM event plugin that guards the ATS ServiceRecords. Its
 * one exported symbol (libosmats.map), which OpenSM looks up by the name
 * OSM_EVENT_PLUGIN_IMPL_NAME once it has loaded the library named by
 * event_plugin_name. */
#ifndef IBATS_OSMATS_H
#define IBATS_OSMATS_H

/* OpenSM's osm_event_plugin_t: osmats.c, which defines it, includes
 * OpenSM's headers; no other file needs them. */
struct osm_event_plugin;
extern struct osm_event_plugin osm_event_plugin;

#endif
