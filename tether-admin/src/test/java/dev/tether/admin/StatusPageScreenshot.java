package dev.tether.admin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Saves what a status page shows once its live stream has filled it and a text appears on it (a
 * dead node during {@code ./tether demo}, say): the picture docs/status-page.png is made with. Not
 * a test.
 *
 * <pre>java -cp ... dev.tether.admin.StatusPageScreenshot URL TEXT OUT.png [waitSeconds=30]</pre>
 */
public final class StatusPageScreenshot {
  private StatusPageScreenshot() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String text = args[1];
    Path out = Path.of(args[2]);
    Duration wait = Duration.ofSeconds(args.length > 3 ? Integer.parseInt(args[3]) : 30);
    ChromeDriver browser = HeadlessChromium.startOrSkip();
    try {
      browser.get(url);
      try {
        new WebDriverWait(browser, wait)
            .until(b -> b.findElement(By.tagName("body")).getText().contains(text));
      } catch (org.openqa.selenium.TimeoutException notShown) {
        System.out.println(
            "the page never showed \""
                + text
                + "\"; it shows:\n"
                + browser.findElement(By.tagName("body")).getText());
        return;
      }
      Files.copy(
          browser.getScreenshotAs(OutputType.FILE).toPath(),
          out,
          StandardCopyOption.REPLACE_EXISTING);
      System.out.println("saved " + out + " once the page showed \"" + text + "\"");
    } finally {
      browser.quit();
    }
  }
}
