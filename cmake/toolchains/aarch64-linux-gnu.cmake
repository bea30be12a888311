# Cross-compiling Ember for 64-bit ARM Linux on an x86-64 Debian host (Debian's multiarch):
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install g++-aarch64-linux-gnu libdnnl-dev:arm64 libsleef-dev:arm64 zlib1g-dev:arm64 \
#       ocl-icd-opencl-dev:arm64 opencl-headers nlohmann-json3-dev catch2 qemu-user-static
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# The CPU capability list is DEFAULT only there (cmake/EmberCpuCapabilities.cmake); ctest runs the
# test programs through qemu-aarch64-static (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Headers are shared with the host (/usr/include); libraries, CMake configs and pkg-config files
# come from the arm64 multiarch directories.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
find_program(EMBER_QEMU_AARCH64 qemu-aarch64-static)
if(EMBER_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${EMBER_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
