/**
 * One report field, drawn from its definition (src/domain/interview-report): yes/no as a pair
 * of radio buttons (arrow keys move, a third "not asked" clears), lists as a select or a group
 * of checkboxes, numbers, dates and texts as inputs. Labels come from the definition in the
 * reader's language.
 */
import { useTranslation } from "react-i18next";
import type { FieldType, ReportValue } from "../../../domain/interview-report";
import type { Locale } from "../../../domain/locales";

export interface FieldProps {
  id: string;
  label: string;
  type: FieldType;
  value: ReportValue | undefined;
  locale: Locale;
  onChange(value: ReportValue, options?: { typing?: boolean }): void;
  readOnly?: boolean;
}

export function ReportField({
  id,
  label,
  type,
  value,
  locale,
  onChange,
  readOnly,
}: FieldProps) {
  const { t } = useTranslation();
  const inputId = `rf-${id}`;
  switch (type.kind) {
    case "bool": {
      const choice = value === true ? "yes" : value === false ? "no" : "";
      return (
        <fieldset className="rf rf-bool" data-field={id}>
          <legend dir="auto">{label}</legend>
          <div className="rf-choices">
            {(["yes", "no", ""] as const).map((option) => (
              <label
                key={option || "none"}
                className={option === "" ? "rf-clear" : undefined}
              >
                <input
                  type="radio"
                  name={inputId}
                  value={option}
                  checked={choice === option}
                  disabled={readOnly}
                  onChange={() =>
                    onChange(
                      option === "yes" ? true : option === "no" ? false : null,
                    )
                  }
                />
                <span>
                  {option === "yes"
                    ? t("report.yes")
                    : option === "no"
                      ? t("report.no")
                      : t("report.notAsked")}
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      );
    }
    case "enum":
      return (
        <div className="rf" data-field={id}>
          <label htmlFor={inputId} dir="auto">
            {label}
          </label>
          <select
            id={inputId}
            value={typeof value === "string" ? value : ""}
            disabled={readOnly}
            onChange={(e) =>
              onChange(e.target.value === "" ? null : e.target.value)
            }
          >
            <option value="">{t("report.choose")}</option>
            {type.options.map((o) => (
              <option key={o.code} value={o.code}>
                {o.labels[locale]}
              </option>
            ))}
          </select>
        </div>
      );
    case "enums": {
      const selected = Array.isArray(value) ? (value as string[]) : [];
      return (
        <fieldset className="rf rf-multi" data-field={id}>
          <legend dir="auto">{label}</legend>
          {type.options.map((o) => (
            <label key={o.code}>
              <input
                type="checkbox"
                checked={selected.includes(o.code)}
                disabled={readOnly}
                onChange={(e) =>
                  onChange(
                    e.target.checked
                      ? [...selected, o.code]
                      : selected.filter((c) => c !== o.code),
                  )
                }
              />
              <span dir="auto">{o.labels[locale]}</span>
            </label>
          ))}
        </fieldset>
      );
    }
    case "int":
      return (
        <div className="rf" data-field={id}>
          <label htmlFor={inputId} dir="auto">
            {label}
          </label>
          <input
            id={inputId}
            type="number"
            inputMode="numeric"
            dir="ltr"
            min={type.min}
            max={type.max}
            value={typeof value === "number" ? value : ""}
            readOnly={readOnly}
            onChange={(e) => {
              const text = e.target.value.trim();
              const number = Number(text);
              if (text === "") onChange(null, { typing: true });
              else if (
                Number.isInteger(number) &&
                number >= type.min &&
                number <= type.max
              )
                onChange(number, { typing: true });
            }}
          />
        </div>
      );
    case "date":
      return (
        <div className="rf" data-field={id}>
          <label htmlFor={inputId} dir="auto">
            {label}
          </label>
          <input
            id={inputId}
            type="date"
            dir="ltr"
            value={typeof value === "string" ? value : ""}
            readOnly={readOnly}
            onChange={(e) =>
              onChange(e.target.value === "" ? null : e.target.value)
            }
          />
        </div>
      );
    case "text":
      return (
        <div className="rf" data-field={id}>
          <label htmlFor={inputId} dir="auto">
            {label}
          </label>
          {type.multiline ? (
            <textarea
              id={inputId}
              dir="auto"
              rows={3}
              maxLength={type.maxLength}
              value={typeof value === "string" ? value : ""}
              readOnly={readOnly}
              onChange={(e) =>
                onChange(e.target.value === "" ? null : e.target.value, {
                  typing: true,
                })
              }
            />
          ) : (
            <input
              id={inputId}
              dir="auto"
              maxLength={type.maxLength}
              value={typeof value === "string" ? value : ""}
              readOnly={readOnly}
              onChange={(e) =>
                onChange(e.target.value === "" ? null : e.target.value, {
                  typing: true,
                })
              }
            />
          )}
        </div>
      );
  }
}
