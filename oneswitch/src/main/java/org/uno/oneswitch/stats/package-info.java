/**
 * The counters and descriptions the core exchanges with the physical switches and the controllers, as
 * plain records: the southbound decodes switches' replies into them and the northbound encodes them,
 * so the core builds no OpenFlow message (as Open vSwitch's ofproto against its lib/ofp-* codecs).
 */
package org.uno.oneswitch.stats;
