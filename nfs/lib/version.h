/* version.h -- version of the UNO network functions. */
#ifndef UNONF_VERSION_H
#define UNONF_VERSION_H 1

#define UNONF_VERSION "0.1.0"
#define NFCTL_PROTOCOL_VERSION 1

#endif /* version.h */
