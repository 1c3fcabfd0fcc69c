{{/* The chart's name, 63 characters at most. */}}
{{- define "slw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of every object: the release name, with the chart's name
appended unless the release name holds it. */}}
{{- define "slw.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "slw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "slw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "slw.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "slw.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: admission-webhook
{{- end -}}

{{- define "slw.serviceAccountName" -}}
{{- default (include "slw.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The Secret the serving certificate is in (both TLS modes). */}}
{{- define "slw.tlsSecretName" -}}
{{- printf "%s-tls" (include "slw.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The cert-manager Certificate, named in cert-manager.io/inject-ca-from. */}}
{{- define "slw.certificateName" -}}
{{- printf "%s-serving" (include "slw.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Both webhook configurations' name: the prefix puts the mutating one
after the injectors (configurations are called in name order). */}}
{{- define "slw.configurationName" -}}
{{- printf "%s%s" .Values.webhook.configurationNamePrefix (include "slw.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "slw.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The names the serving certificate is valid for: the Service's. */}}
{{- define "slw.dnsNames" -}}
{{- $svc := include "slw.fullname" . -}}
{{- $ns := .Release.Namespace -}}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) | toJson -}}
{{- end -}}

{{/* Values the schema cannot check alone. */}}
{{- define "slw.check" -}}
{{- $need := add 5 .Values.webhook.timeoutSeconds 10 -}}
{{- if lt (int .Values.terminationGracePeriodSeconds) (int $need) -}}
{{- fail (printf "terminationGracePeriodSeconds %v is too short: the webhook is not ready for 5 s after SIGTERM, then finishes reviews of up to webhook.timeoutSeconds (%v s), and 10 s of margin: give it at least %v" .Values.terminationGracePeriodSeconds .Values.webhook.timeoutSeconds $need) -}}
{{- end -}}
{{- if and (eq .Values.tls.mode "cert-manager") .Values.tls.certManager.issuerRef (not .Values.tls.certManager.issuerRef.name) -}}
{{- fail "tls.certManager.issuerRef needs a name" -}}
{{- end -}}
{{- end -}}
