# The controller image: `cueue controller` for a Kubernetes cluster
# (config/default runs it as `/cueue controller ...`).
#   docker build -t cueue:latest .
# Build stage: Debian 12 with the build dependencies (scripts/deps.sh).
FROM debian:12 AS build
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        ca-certificates pkg-config cmake make gcc libjansson-dev libyaml-dev \
        libcurl4-gnutls-dev libgnutls28-dev libsqlite3-dev libcmocka-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY cmake cmake
COPY config config
COPY src src
COPY tests tests
COPY fuzz fuzz
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null \
    && cmake --build build -j"$(nproc)" --target cueue \
    && strip build/cueue

# Runtime stage: the libraries the binary links and nothing else.
FROM debian:12-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
        ca-certificates libjansson4 libyaml-0-2 libcurl3-gnutls libgnutls30 libsqlite3-0 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/cueue /cueue
# A numeric user, so runAsNonRoot can verify it without /etc/passwd.
USER 65532:65532
ENTRYPOINT ["/cueue"]
CMD ["controller"]
