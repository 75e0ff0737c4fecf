"""The Harbor environment's server (:mod:`harbor_env.server.app`)."""
