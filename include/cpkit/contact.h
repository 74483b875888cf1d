/* contact.h: PLACEHOLDER (contact systems and formulation compilers), being written. */
#ifndef CPKIT_CONTACT_H
#define CPKIT_CONTACT_H
#endif
