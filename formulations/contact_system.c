/* contact_system.c: PLACEHOLDER, being written. */
typedef int cpk_placeholder_contact_system;
