"""The club: every referee of a room on one MQTT broker, one dashboard and one records folder.

``club.protocol`` names the topics and parses broker URLs (the referee's publisher in
``controller/club_link.py`` uses it too); ``club.mirror`` keeps each table's journal copy;
``club.server`` subscribes and serves the dashboard; ``club.setup`` writes a secured Mosquitto
configuration.  See docs/CLUB.md.
"""
