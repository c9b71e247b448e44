// rdkafka_mock.h only compiles after rdkafka.h, so both come through this one umbrella header.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
