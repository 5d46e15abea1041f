// Keeps gRPC 1.51's process-wide callback completion queue alive for the
// life of the process (one idle, port-less grpc::Server with a callback
// service, started once and never destroyed).
//
// Why: with the epoll1 poller, grpc++ 1.51 runs callback-API reactions on
// "nexting" threads of one shared completion queue, reference counted by
// every grpc::Channel and grpc::Server that used the callback API. When
// the last of them is destroyed ON one of those threads (its last
// reference dropped inside a reaction: a call's OnDone deleting its
// ClientContext, a unary callback releasing an endpoint), grpc++'s
// ReleaseCallbackAlternativeCQ shuts that queue down, tries to join the
// thread it runs on and deletes the queue, and the thread's loop then calls
// Next on the freed queue: the double free in grpc_cq_internal_unref that
// ASan reported in short test processes (session 10 at exit of
// xds_client_e2e_test; session 11 in ClusterTreeE2eTest.DepthAndLoops).
// With one reference held for the process's life the count never reaches
// zero there. It also keeps grpc_shutdown from running on a gRPC thread,
// which hands gRPC's teardown to a detached thread that races exit.
// Cost: one idle server object (no port, no thread of its own).
#ifndef XDSFED_LIB_TRANSPORT_GRPC_LIFETIME_H_
#define XDSFED_LIB_TRANSPORT_GRPC_LIFETIME_H_

namespace xdsfed::transport {

// Idempotent and thread-safe; every grpc++-using part of xdsfed calls it
// before it makes a channel or a server. Returns whether the hold is in
// place (grpc++ started the idle server).
bool HoldGrpcCallbackQueueForProcessLife();

}  // namespace xdsfed::transport

#endif  // XDSFED_LIB_TRANSPORT_GRPC_LIFETIME_H_
