# A configuration error whose diagnostic prints the value of the variable involved:
# Terraform's stderr then carries whatever secret the variable holds.
terraform {
  backend "s3" {
    use_lockfile = true
  }
}

variable "bundle_path" {
  type = string
}

locals {
  bundle = file(var.bundle_path)
}

output "bundle_size" {
  value = length(local.bundle)
}
