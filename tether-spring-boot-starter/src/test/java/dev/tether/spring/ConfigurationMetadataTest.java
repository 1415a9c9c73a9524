package dev.tether.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigurationMetadataTest {
  @Test
  void theJarTellsIdesTheStartersKeysAndCoresWithDescriptions() throws IOException {
    JsonNode metadata;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("written by the configuration processor at compile time").isNotNull();
      metadata = new ObjectMapper().readTree(in);
    }
    List<String> names = new ArrayList<>();
    for (JsonNode p : metadata.get("properties")) {
      names.add(p.get("name").asText());
      assertThat(p.path("description").asText()).as(p.get("name").asText()).isNotBlank();
    }
    assertThat(names)
        .contains(
            "tether.server.endpoints",
            "tether.clients",
            "tether.retry.intervals",
            "tether.heartbeat.readerIdle",
            "tether.server.readerIdle",
            "tether.close.grace");
  }
}
